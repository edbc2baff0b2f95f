import type { Client } from 'ssh2';
import { describe, expect, it } from 'vitest';
import { openConnection, TransientConnectError } from '../../../src/transport/ssh/connect.js';

// A jump host that never answers the channel open (its own connect to a booting guest hangs):
// the attempt must end at the connect deadline as a direct connect does, so the caller retries.
describe('a connection through a jump host that never opens the channel', () => {
  it('fails at the connect deadline with a retryable error naming the jump host', async () => {
    let asked = '';
    const silentJump = {
      forwardOut: (_srcIp: string, _srcPort: number, dstIp: string, dstPort: number) => {
        asked = `${dstIp}:${dstPort}`;
      },
    } as unknown as Client;
    const attempt = openConnection({
      label: 'controller-01',
      address: '10.0.0.11',
      port: 22,
      user: 'root',
      keys: [],
      hostKeys: { entries: [], policy: 'strict' },
      connectTimeoutMs: 200,
      keepaliveIntervalMs: 0,
      keepaliveCountMax: 3,
      via: { client: silentJump, label: 'hv-a' },
    });
    await expect(attempt).rejects.toThrow(TransientConnectError);
    await expect(attempt).rejects.toThrow(
      'timed out after 200 ms connecting to 10.0.0.11:22 through jump host hv-a',
    );
    expect(asked).toBe('10.0.0.11:22');
  });
});
