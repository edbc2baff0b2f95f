import { once } from 'node:events';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { CiStopper } from '../../src/cli/ci/stopper.js';

// The policy of kubemix ci's signals and time budget. Signals are delivered as the process sees
// them (process.emit runs the same listeners a real SIGTERM would), so no process is killed.
let stopper: CiStopper | undefined;
afterEach(() => {
  stopper?.dispose();
  stopper = undefined;
  vi.restoreAllMocks();
});
const quiet = () => vi.spyOn(process.stderr, 'write').mockImplementation(() => true);

describe('kubemix ci stopping', () => {
  it('stops the build on the first signal, and leaves the teardown alone', () => {
    const messages = quiet();
    stopper = new CiStopper({});
    process.emit('SIGTERM', 'SIGTERM');
    expect([stopper.build.signal.aborted, stopper.stoppedBy]).toEqual([true, 'interrupted']);
    expect(stopper.teardown.signal.aborted).toBe(false);
    expect(String(messages.mock.calls[0]?.[0])).toContain(
      'SIGTERM: stopping the build; the teardown runs next',
    );
  });

  it('goes on with the teardown after one signal, and stops it on the second', () => {
    const messages = quiet();
    stopper = new CiStopper({});
    stopper.startTeardown();
    process.emit('SIGINT', 'SIGINT');
    expect(stopper.teardown.signal.aborted).toBe(false);
    expect(String(messages.mock.calls.at(-1)?.[0])).toContain('SIGINT during the teardown: it goes on');
    process.emit('SIGTERM', 'SIGTERM');
    expect(stopper.teardown.signal.aborted).toBe(true);
    // The build was not stopped by these: it was over.
    expect(stopper.stoppedBy).toBeUndefined();
  });

  it('stops the build when the budget runs out', async () => {
    quiet();
    stopper = new CiStopper({ timeoutMs: 20, timeoutText: '20ms' });
    await once(stopper.build.signal, 'abort');
    expect(stopper.stoppedBy).toBe('timed-out');
  });

  it('lets the budget go once the teardown starts, and stops listening when disposed', () => {
    vi.useFakeTimers();
    try {
      stopper = new CiStopper({ timeoutMs: 1000, timeoutText: '1s' });
      stopper.startTeardown();
      vi.advanceTimersByTime(5000);
      expect(stopper.build.signal.aborted).toBe(false);
      const listeners = process.listenerCount('SIGTERM');
      stopper.dispose();
      expect(process.listenerCount('SIGTERM')).toBe(listeners - 1);
    } finally {
      vi.useRealTimers();
    }
  });
});
