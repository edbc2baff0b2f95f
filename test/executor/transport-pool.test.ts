import { describe, expect, it } from 'vitest';
import { TransportPool } from '../../src/executor/transport-pool.js';
import type { Transport } from '../../src/transport/types.js';
import type { InventoryHost } from '../../src/types/inventory.js';

const host: InventoryHost = {
  name: 'win-1',
  address: '10.0.0.14',
  os: 'windows',
  connection: 'winrm',
  role: 'worker',
  group: 'win',
};

/** Transports that only remember whether they were connected and closed. */
function factory() {
  const made: Array<{ connected: boolean; closed: boolean }> = [];
  const make = (): Transport => {
    const state = { connected: false, closed: false };
    made.push(state);
    const unused = () => Promise.reject(new Error('not used here'));
    return {
      host: host.name,
      kind: 'winrm',
      connect: async () => {
        state.connected = true;
      },
      close: async () => {
        state.closed = true;
      },
      exec: unused,
      put: unused,
      get: unused,
    };
  };
  return { made, make };
}

describe('TransportPool.unconnected', () => {
  it('closes the transport an earlier task connected, and later get() calls return the new one', async () => {
    const { made, make } = factory();
    const pool = new TransportPool(make);
    await pool.get(host);
    const fresh = pool.unconnected(host);
    expect(await pool.get(host)).toBe(fresh);
    await pool.closeAll();
    expect(made).toEqual([
      { connected: true, closed: true },
      { connected: false, closed: true },
    ]);
  });

  it('closes nothing when the host had no transport', async () => {
    const { made, make } = factory();
    const pool = new TransportPool(make);
    pool.unconnected(host);
    expect(made).toEqual([{ connected: false, closed: false }]);
  });
});

describe('TransportPool connection reports', () => {
  it('tells opened, reused and closed once each; a connect that ends after closeAll is not told', async () => {
    const reports: string[] = [];
    let finishLate: (() => void) | undefined;
    const detail = {
      transport: 'winrm' as const,
      address: host.address,
      port: 5985,
      user: 'Administrator',
      auth: ['ntlm with password'],
      hostCheck: 'http',
    };
    const make = (h: InventoryHost): Transport => ({
      host: h.name,
      kind: 'winrm',
      // The second host's connect is still under way when the run ends.
      connect: () =>
        h.name === 'late' ? new Promise<void>((resolve) => (finishLate = resolve)) : Promise.resolve(),
      close: async () => undefined,
      exec: () => Promise.reject(new Error('not used here')),
      put: () => Promise.reject(new Error('not used here')),
      get: () => Promise.reject(new Error('not used here')),
      connectionDetail: () => detail,
    });
    const pool = new TransportPool(make, (r) => reports.push(`${r.host} ${r.state} ${r.detail?.user}`));
    await pool.get(host);
    await pool.get(host);
    void pool.get({ ...host, name: 'late' });
    await pool.closeAll();
    finishLate?.();
    await new Promise((resolve) => setImmediate(resolve));
    expect(reports).toEqual([
      'win-1 opened Administrator',
      'win-1 reused Administrator',
      'win-1 closed Administrator',
    ]);
  });
});
