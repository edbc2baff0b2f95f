import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { secretReader } from '../../src/cli/run-plan-command.js';
import { writeSecrets } from '../../src/engine/secrets-store.js';
import { createTransportFactory } from '../../src/executor/create-transport.js';
import type { InventoryHost } from '../../src/types/inventory.js';
import { testTempDir } from '../helpers/temp.js';
import { startTestServer, type TestServer } from '../transport/winrm/helpers.js';

// A password kubemix generated (a libvirt Windows guest's Administrator password) lives only in
// the cluster's secrets.json; the host names it with kubemix_password_secret and the WinRM
// transport reads it from there when it connects. Proven against the WinRM test server (NTLM
// with message encryption), which accepts only that password.
const PASSWORD = 'Kx7#mQ2-p9Lr_Vw4.zT8=aB3';
let server: TestServer;

beforeAll(async () => {
  server = await startTestServer({ users: { Administrator: PASSWORD } });
});
afterAll(async () => {
  await server?.server.stop();
});

const guest = (secret: string): InventoryHost => ({
  name: 'windows-01',
  address: server.server.host,
  port: server.server.port,
  os: 'windows',
  connection: 'winrm',
  role: 'worker',
  group: 'windows',
  credentials: { user: 'Administrator' },
  vars: { kubemix_password_secret: secret },
});

describe('a generated password read from secrets.json (kubemix_password_secret)', () => {
  it('logs in to WinRM with the password registered on the hypervisor, found by output and node', async () => {
    const dir = await testTempDir('password-secret');
    await writeSecrets(dir, {
      'hypervisor-02': { libvirt_windows_passwords: { 'windows-02': 'not this one' } },
      'hypervisor-01': { libvirt_windows_passwords: { 'windows-01': PASSWORD } },
    });
    const factory = createTransportFactory({ readSecret: secretReader(dir) });
    const transport = factory(guest('libvirt_windows_passwords.windows-01'));
    await transport.connect();
    const ran = await transport.exec({ command: "Write-Output 'ok'" });
    await transport.close();
    expect(ran.stdout.trim()).toBe('ok');
  });

  it('names the missing secret output instead of trying an empty password', async () => {
    const dir = await testTempDir('password-secret');
    await writeSecrets(dir, {});
    const negotiated = server.server.stats.requests['ntlm-negotiate'] ?? 0;
    const factory = createTransportFactory({ readSecret: secretReader(dir) });
    const transport = factory(guest('libvirt_windows_passwords.windows-01'));
    await expect(transport.connect()).rejects.toThrow(
      "windows-01: its password (secret output libvirt_windows_passwords.windows-01) is not in the cluster's secrets.json",
    );
    // Refused before any request reached the host.
    expect(server.server.stats.requests['ntlm-negotiate'] ?? 0).toBe(negotiated);
  });
});
