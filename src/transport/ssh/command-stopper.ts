import type { ConnectionPool } from './connection-pool.js';
import type { SshExecRequest } from './exec-context.js';
import { killScript } from './shell-script.js';

/** After a kill, how long to wait for the command's trailer before giving up on its shell. */
const KILL_GRACE_MS = 5000;

/** Why a command stopped early, if it did. */
export interface StopState {
  timedOut: boolean;
  cancelled: boolean;
}

/** Options of {@link commandStopper}. */
export interface CommandStopperOptions {
  pool: ConnectionPool;
  /** The process to kill: the shell's children, or the channel's own process group. */
  target: () => Promise<{ pid: number | undefined; childrenOnly: boolean }>;
  /** The kill runs with sudo when the command did and the login user is not root. */
  asRoot: boolean;
  /** Gives up on the shell or channel when the kill cannot end the command. */
  abandon: () => void;
  request: Pick<SshExecRequest, 'timeoutMs' | 'signal'>;
}

/**
 * Timeout and abort handling: kill the command's process group over another channel. finish()
 * resolves once the kill script is done (the group is gone), so a timed-out result means dead.
 */
export function commandStopper(options: CommandStopperOptions): {
  state: StopState;
  finish: () => Promise<void>;
} {
  const { pool, target, asRoot, abandon, request } = options;
  const state: StopState = { timedOut: false, cancelled: false };
  let graceTimer: NodeJS.Timeout | undefined;
  let killed: Promise<void> | undefined;
  const kill = async () => {
    // If the kill cannot end the command, give up on its shell or channel after a grace period.
    graceTimer = setTimeout(abandon, KILL_GRACE_MS);
    const { pid, childrenOnly } = await target();
    if (pid === undefined) return;
    try {
      const { channel } = await pool.openExec(killScript(pid, { asRoot, childrenOnly }));
      channel.stderr.resume();
      await new Promise<void>((resolve) => {
        channel.on('close', () => resolve());
        channel.resume();
      });
    } catch {
      abandon();
    }
  };
  const start = () => {
    killed ??= kill();
  };
  const timer =
    request.timeoutMs === undefined
      ? undefined
      : setTimeout(() => {
          state.timedOut = true;
          start();
        }, request.timeoutMs);
  const onAbort = () => {
    if (state.timedOut || state.cancelled) return;
    state.cancelled = true;
    start();
  };
  request.signal?.addEventListener('abort', onAbort, { once: true });
  return {
    state,
    finish: async () => {
      if (timer) clearTimeout(timer);
      request.signal?.removeEventListener('abort', onAbort);
      if (killed) await Promise.race([killed, new Promise((resolve) => setTimeout(resolve, KILL_GRACE_MS))]);
      if (graceTimer) clearTimeout(graceTimer);
    },
  };
}
