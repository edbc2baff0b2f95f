import { afterEach, describe, expect, it, vi } from 'vitest';
import { CONNECT_ATTEMPT_MS, runModule } from '../../src/executor/run-module.js';
import type { Module, ModuleRun } from '../../src/modules/types.js';
import type { Transport } from '../../src/transport/types.js';
import type { InventoryHost } from '../../src/types/inventory.js';

const host: InventoryHost = {
  name: 'guest-01',
  address: '192.0.2.30',
  os: 'linux',
  connection: 'ssh',
  role: 'worker',
  group: 'linux',
};

const waitModule: Module<{ timeoutMs: number }> = {
  name: 'test_wait',
  os: 'any',
  parseArgs: (raw) => ({ timeoutMs: Number(raw['timeoutMs']) }),
  *run(args): ModuleRun {
    const result = yield { kind: 'reconnect', timeoutMs: args.timeoutMs, initialDelayMs: 1 };
    return { changed: false, failed: result.failed, msg: result.stderr };
  },
};

/**
 * A transport whose first connect never settles (as a host restarting sshd mid-handshake can
 * leave it) and whose later connects succeed: the reconnect must give up on the first attempt and
 * try again, not wait on it for the whole time allowed.
 */
function hangingOnce(): Transport & { attempts: number; closes: number } {
  return {
    host: host.name,
    attempts: 0,
    closes: 0,
    connect() {
      this.attempts += 1;
      return this.attempts === 1 ? new Promise<void>(() => undefined) : Promise.resolve();
    },
    async close() {
      this.closes += 1;
    },
  } as unknown as Transport & { attempts: number; closes: number };
}

describe('reconnect', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('drops a connect attempt that never returns and succeeds with the next one', async () => {
    vi.useFakeTimers();
    const transport = hangingOnce();
    // The whole wait allows two attempts' deadlines: the first must not take all of it.
    const running = runModule({
      module: waitModule as Module<unknown>,
      args: { timeoutMs: 2 * CONNECT_ATTEMPT_MS + 30_000 },
      context: { host, os: 'linux', vars: {}, checkMode: false },
      transport,
    });
    await vi.advanceTimersByTimeAsync(CONNECT_ATTEMPT_MS + 20_000);
    const outcome = await running;
    expect(outcome.failed).toBe(false);
    expect(transport.attempts).toBe(2);
    expect(transport.closes).toBeGreaterThanOrEqual(2);
  });
});
