import { describe, expect, it } from 'vitest';
import { winrmConnectionDetail } from '../../../src/transport/winrm/connection-detail.js';
import { resolveOptions } from '../../../src/transport/winrm/options.js';

const PASSWORD = 'Pa55-w0rd-Secret';
const FINGERPRINT = 'ab'.repeat(32);

describe('winrmConnectionDetail (-vvv)', () => {
  it('names the endpoint, the account, the authentication and how the server is checked; never the password', async () => {
    const cases = [
      {
        options: {},
        auth: 'ntlm with password (messages encrypted)',
        check: 'http (no server certificate)',
        port: 5985,
      },
      {
        options: {
          scheme: 'https' as const,
          auth: 'basic' as const,
          tls: { fingerprint: FINGERPRINT, insecure: true },
        },
        auth: 'basic with password',
        check: `https, certificate pinned by SHA-256 fingerprint ${FINGERPRINT}`,
        port: 5986,
      },
      {
        options: { scheme: 'https' as const, tls: { insecure: true } },
        auth: 'ntlm with password (messages encrypted)',
        check: 'https, certificate not checked (insecure)',
        port: 5986,
      },
      {
        options: { scheme: 'https' as const, tls: { caFile: '/etc/kubemix/ca.pem' } },
        auth: 'ntlm with password (messages encrypted)',
        check: 'https, certificate checked against CA file /etc/kubemix/ca.pem',
        port: 5986,
      },
    ];
    for (const { options, auth, check, port } of cases) {
      const resolved = await resolveOptions({
        host: 'win-1',
        address: '10.0.0.9',
        user: 'Administrator',
        password: PASSWORD,
        ...options,
      });
      const detail = winrmConnectionDetail(resolved);
      expect(detail).toEqual({
        transport: 'winrm',
        address: '10.0.0.9',
        port,
        user: 'Administrator',
        auth: [auth],
        hostCheck: check,
      });
      expect(JSON.stringify(detail)).not.toContain(PASSWORD);
    }
  });
});
