import { KubemixError } from '../../errors/index.js';
import type { Ec2Context } from './context.js';

/** How long to wait and how often to look. */
export interface WaitOptions {
  /** What is awaited, for progress lines and the timeout message. */
  what: string;
  timeoutMs: number;
  /** First pause; doubles up to maxIntervalMs. */
  intervalMs?: number;
  maxIntervalMs?: number;
}

/**
 * Polls `check` until it returns a value (not undefined), pausing with backoff; reports progress
 * (what `check` says it sees) when it changes. Fails with one line after `timeoutMs`.
 */
export async function waitFor<T>(
  ctx: Ec2Context,
  options: WaitOptions,
  check: () => Promise<{ done: T } | { progress: string }>,
): Promise<T> {
  const started = ctx.clock.now();
  let interval = options.intervalMs ?? 2000;
  let last = '';
  for (;;) {
    if (ctx.signal?.aborted)
      throw new KubemixError(`interrupted while waiting for ${options.what}`, { exitCode: 130 });
    const seen = await check();
    if ('done' in seen) return seen.done;
    const elapsed = ctx.clock.now() - started;
    if (seen.progress !== last) {
      ctx.progress(`waiting for ${options.what}: ${seen.progress} (${Math.round(elapsed / 1000)} s)`);
      last = seen.progress;
    }
    if (elapsed >= options.timeoutMs)
      throw new KubemixError(
        `timed out after ${Math.round(options.timeoutMs / 1000)} s waiting for ${options.what}: ${seen.progress}`,
      );
    await ctx.clock.sleep(Math.min(interval, Math.max(0, options.timeoutMs - elapsed)), ctx.signal);
    interval = Math.min(interval * 2, options.maxIntervalMs ?? 15_000);
  }
}
