import { evaluateCondition } from '../template/index.js';
import { abortableSleep as sleep } from '../timing/abortable-sleep.js';
import { failedResult } from '../types/command-result.js';
import type { ExecuteTaskOptions, SingleRun } from './execute-task-types.js';
import { runOnce } from './run-once.js';
import { summary } from './task-outcome.js';
import type { Task } from './types.js';
import { withVars } from './vars.js';

/** A growing delay (backoff above 1) never waits longer than this between two attempts, unless its base is longer. */
export const MAX_GROWING_DELAY_MS = 60_000;

/**
 * The wait after attempt `failedAttempt` (1-based): `baseMs`, times `backoff` after each attempt,
 * capped at max(60 s, baseMs). With backoff 1 (Ansible's fixed `delay`) it is always `baseMs`.
 */
export function retryDelayMs(baseMs: number, backoff: number, failedAttempt: number): number {
  return Math.min(baseMs * backoff ** (failedAttempt - 1), Math.max(MAX_GROWING_DELAY_MS, baseMs));
}

/**
 * kubemix's only attempt loop, for `kubemix run` and for every step of `kubemix up` (the engine
 * runs a step once and leaves its attempts to this loop). Runs once, then again while `until` is
 * false (or, without `until`, while it fails and retries remain), as Ansible's
 * TaskExecutor._execute (ansible/ansible v2.17.0 = commit a26c0f7b,
 * lib/ansible/executor/task_executor.py lines 618-647 and 758-783): `retries` extra attempts (3
 * by default with `until`), `delay` seconds between them (5 by default with `until`, else 1), and
 * `options.onRetry` told of each failed attempt before the wait, as Ansible's v2_runner_retry
 * callback is.
 *
 * The time limit (`task.timeoutMs`, Ansible's `timeout`) is per attempt, and an attempt that
 * outlives it ends the task failed, without the remaining attempts: Ansible arms its alarm around
 * each handler run and returns from _execute on TaskTimeoutError (same file, lines 633-643).
 * Two additions for steps built in code (src/playbook/plan-step.ts): `backoff` multiplies the
 * delay after each attempt (capped, see retryDelayMs), and `retryUnreachable` retries a lost
 * connection, which Ansible reports at once (lines 639-640).
 */
export async function runWithRetries(
  options: ExecuteTaskOptions,
  vars: Record<string, unknown>,
  check: boolean,
): Promise<SingleRun & { attempts: number }> {
  const { task } = options;
  const hasUntil = task.until !== undefined;
  const retries = task.retries ?? (hasUntil ? 3 : 0);
  const maxAttempts = Math.max(1, retries + 1);
  const baseDelayMs = (task.delay ?? (hasUntil ? 5 : 1)) * 1000;
  for (let attempt = 1; ; attempt++) {
    const { run, timedOut } = await runWithinLimit(options, vars, check);
    // The last attempt's commands are the task's: an earlier failure retried away explains nothing.
    const finished = { ...run, attempts: attempt };
    if (timedOut || run.registered['skipped'] === true) return finished;
    if (run.unreachable && !task.retryUnreachable) return finished;
    let done: boolean;
    if (run.unreachable) done = false;
    else if (hasUntil) {
      const bound = task.register ? withVars(vars, { [task.register]: run.registered }) : vars;
      try {
        done = evaluateCondition(task.until, bound);
      } catch (error) {
        run.registered['failed'] = true;
        run.registered['msg'] = `The conditional check failed. The error was: ${(error as Error).message}`;
        return finished;
      }
    } else done = run.registered['failed'] !== true;
    if (retries > 0) run.registered['attempts'] = attempt;
    if (done || attempt >= maxAttempts || options.signal?.aborted) {
      if (!done && hasUntil) {
        run.registered['failed'] = true;
        run.registered['msg'] =
          `${run.registered['msg'] ? `${run.registered['msg']}; ` : ''}until condition not met after ${attempt} attempts`;
      }
      return finished;
    }
    const delayMs = retryDelayMs(baseDelayMs, task.backoff ?? 1, attempt);
    options.onRetry?.({
      attempt,
      delayMs,
      result: run.results.at(-1) ?? summary(task, options.host.name, run.registered),
    });
    await sleep(delayMs, options.signal);
    // Ctrl-C during the wait: the failed attempt is the task's result; no new attempt starts.
    if (options.signal?.aborted) return finished;
  }
}

/** One attempt, stopped through its signal when it outlives `task.timeoutMs`. */
async function runWithinLimit(
  options: ExecuteTaskOptions,
  vars: Record<string, unknown>,
  check: boolean,
): Promise<{ run: SingleRun; timedOut: boolean }> {
  const limitMs = options.task.timeoutMs;
  if (limitMs === undefined) return { run: await runOnce(options, vars, check), timedOut: false };
  const limit = new AbortController();
  const timer = setTimeout(() => limit.abort(), limitMs);
  const signal = options.signal ? AbortSignal.any([options.signal, limit.signal]) : limit.signal;
  try {
    const run = await runOnce({ ...options, signal }, vars, check);
    // Ctrl-C is an interruption, not a timeout; a run that ended well as the limit passed stands.
    const timedOut = limit.signal.aborted && !options.signal?.aborted && run.registered['failed'] === true;
    return { run: timedOut ? timedOutRun(run, options.task, limitMs, options.host.name) : run, timedOut };
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The attempt as a timed-out failure: its failed command (or, when none failed, a result added for
 * the attempt) marked timed out with "timed out after N ms", and Ansible's message (same file,
 * line 642).
 */
function timedOutRun(run: SingleRun, task: Task, limitMs: number, hostName: string): SingleRun {
  const note = `timed out after ${limitMs} ms`;
  const results = [...run.results];
  const index = results.findLastIndex((r) => r.failed);
  const failed = results[index];
  if (failed === undefined)
    results.push({ ...failedResult(`${task.module} ${task.name}`, note, limitMs, hostName), timedOut: true });
  else if (!failed.timedOut)
    results[index] = { ...failed, timedOut: true, stderr: `${failed.stderr}\n${note}`.trim() };
  const msg = `The ${task.module} action failed to execute in the expected time frame (${limitMs} ms) and was terminated`;
  return { ...run, results, registered: { ...run.registered, failed: true, msg } };
}
