import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runClusterPlan } from '../../src/cluster/run-plan.js';
import type { TransportFactory } from '../../src/executor/transport-pool.js';
import type { Transport } from '../../src/transport/types.js';
import type { InventoryHost } from '../../src/types/inventory.js';
import { testTempDir } from '../helpers/temp.js';
import { makePlan, task, waitFor } from './helpers.js';

// Ctrl-C while a host never finishes its handshake (a machine that accepts TCP and says nothing,
// an sshd stuck mid-restart). Before, the run waited for the attempt: forever for a connect that
// never settles (these tests then time out), up to a minute for a wait_for_connection attempt.

/** Transports whose connect never settles; records the connects begun and the closes. */
function neverAnswering() {
  const seen = { connects: 0, closes: 0 };
  const factory: TransportFactory = (host) =>
    ({
      host: host.name,
      connect: () => {
        seen.connects += 1;
        return new Promise<void>(() => undefined);
      },
      close: async () => {
        seen.closes += 1;
      },
    }) as unknown as Transport;
  return { seen, factory };
}

function host(extra: Partial<InventoryHost> = {}): InventoryHost {
  return {
    name: 'silent-01',
    address: '192.0.2.40',
    os: 'linux',
    connection: 'ssh',
    role: 'worker',
    group: 'workers',
    ...extra,
  };
}

describe('Ctrl-C while a host is still connecting', () => {
  it('stops a listed host whose first connect never answers, and releases the lock', async () => {
    const dir = await testTempDir('engine');
    const { seen, factory } = neverAnswering();
    const plan = makePlan(
      [task('t', [], ['silent-01'], [{ name: 'x', module: 'command', args: { cmd: 'true' } }])],
      [host()],
    );
    const controller = new AbortController();
    const run = runClusterPlan({ plan, clusterDir: dir, transports: factory, signal: controller.signal });
    await waitFor(() => seen.connects > 0, 10_000, 'the connect to begin');
    controller.abort();
    const summary = await run;
    expect(summary.status).toBe('interrupted');
    expect(summary.tasks['t']).toMatchObject({ status: 'pending', reason: 'interrupted' });
    expect(existsSync(join(dir, 'lock'))).toBe(false);
  });

  it('stops a created machine waited for by wait_for_connection mid-attempt', async () => {
    const dir = await testTempDir('engine');
    const { seen, factory } = neverAnswering();
    const plan = makePlan(
      [
        task(
          'wait-for-hosts',
          [],
          ['silent-01'],
          [{ name: 'wait', module: 'wait_for_connection', args: { timeout: 600 } }],
        ),
      ],
      [host({ createdBy: 'libvirt' })],
    );
    const controller = new AbortController();
    const run = runClusterPlan({ plan, clusterDir: dir, transports: factory, signal: controller.signal });
    await waitFor(() => seen.connects > 0, 10_000, 'the first connect attempt to begin');
    controller.abort();
    const summary = await run;
    expect(summary.status).toBe('interrupted');
    expect(existsSync(join(dir, 'lock'))).toBe(false);
    // The attempt given up on is closed, not left open.
    expect(seen.closes).toBeGreaterThan(0);
  });
});
