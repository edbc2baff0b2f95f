import type { CommandResult } from '../types/command-result.js';
import type { ModuleAction } from './types.js';

/** How to tell that a host came back from a reboot. */
export interface AwaitNewBootOptions {
  /** The boot id / boot time read before the reboot was scheduled. */
  previous: string;
  /** The command that reads it again. */
  readBoot: Extract<ModuleAction, { kind: 'exec' }>;
  /** reboot_timeout, in ms. */
  limitMs: number;
  /** Wait before the first reconnect attempt (the host needs time to go down). */
  initialDelayMs: number;
  /** Wait before the next reconnect when the host answered with the old boot value. */
  nextDelayMs: (previousDelayMs: number) => number;
}

/** How the wait ended. `elapsedMs` counts every reconnect and read. */
export type AwaitNewBootResult =
  | { kind: 'rebooted'; boot: string; elapsedMs: number }
  | { kind: 'unreachable'; detail: string; elapsedMs: number }
  | { kind: 'unchanged'; elapsedMs: number };

/**
 * The Ansible way to wait for a reboot, shared by `reboot` and `win_reboot`: treat the lost
 * connection as expected, reconnect with backoff until the time limit, and only count the host
 * as rebooted when its boot id/time differs from the one read before.
 */
export function* awaitNewBoot(
  options: AwaitNewBootOptions,
): Generator<ModuleAction, AwaitNewBootResult, CommandResult> {
  let elapsedMs = 0;
  let delayMs = options.initialDelayMs;
  for (;;) {
    const back = yield {
      kind: 'reconnect',
      timeoutMs: Math.max(options.limitMs - elapsedMs, 1),
      initialDelayMs: delayMs,
      expectLoss: true,
    };
    elapsedMs += back.durationMs;
    if (back.failed) return { kind: 'unreachable', detail: back.stderr.trim(), elapsedMs };
    const now = yield options.readBoot;
    elapsedMs += now.durationMs;
    const boot = now.stdout.trim();
    if (!now.failed && boot !== '' && boot !== options.previous) return { kind: 'rebooted', boot, elapsedMs };
    if (elapsedMs >= options.limitMs) return { kind: 'unchanged', elapsedMs };
    delayMs = options.nextDelayMs(delayMs);
  }
}
