import { optionalNumber, type RawArgs, rejectUnknown } from '../args.js';
import type { Module } from '../types.js';

/** Arguments of `wait_for_connection`, in seconds like Ansible. */
export interface WaitForConnectionArgs {
  timeout: number;
  delay: number;
  sleep: number;
}

/**
 * `wait_for_connection`: reconnects to the host (retrying with backoff until `timeout`), then
 * checks that a command runs, retrying the check until the time is up.
 */
export const waitForConnectionModule: Module<WaitForConnectionArgs> = {
  name: 'wait_for_connection',
  os: 'any',
  parseArgs(raw: RawArgs) {
    rejectUnknown('wait_for_connection', raw, ['timeout', 'delay', 'sleep', 'connect_timeout']);
    return {
      timeout: optionalNumber('wait_for_connection', raw, 'timeout') ?? 600,
      delay: optionalNumber('wait_for_connection', raw, 'delay') ?? 0,
      sleep: optionalNumber('wait_for_connection', raw, 'sleep', 0.01) ?? 1,
    };
  },
  *run(args, context) {
    const limitMs = args.timeout * 1000;
    let elapsedMs = 0;
    const probe = context.os === 'windows' ? 'Write-Output ok' : 'echo ok';
    for (;;) {
      const reconnect = yield {
        kind: 'reconnect',
        timeoutMs: Math.max(limitMs - elapsedMs, 1),
        initialDelayMs: args.delay * 1000,
      };
      elapsedMs += reconnect.durationMs;
      if (reconnect.failed)
        return {
          changed: false,
          failed: true,
          msg: `timed out waiting for connection: ${reconnect.stderr.trim()}`,
          data: { elapsed: Math.round(elapsedMs / 1000) },
        };
      const check = yield { kind: 'exec', command: probe, timeoutMs: 30_000 };
      elapsedMs += check.durationMs;
      if (!check.failed)
        return { changed: false, failed: false, data: { elapsed: Math.round(elapsedMs / 1000) } };
      if (elapsedMs >= limitMs)
        return {
          changed: false,
          failed: true,
          msg: `timed out waiting for connection: the test command failed: ${check.stderr.trim()}`,
          data: { elapsed: Math.round(elapsedMs / 1000) },
        };
      const slept = yield { kind: 'sleep', ms: args.sleep * 1000 };
      elapsedMs += Math.max(slept.durationMs, 1);
      args = { ...args, delay: 0 };
    }
  },
};
