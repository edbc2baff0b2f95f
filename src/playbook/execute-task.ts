import { evaluateCondition, renderValue } from '../template/index.js';
import { abortableSleep as sleep } from '../timing/abortable-sleep.js';
import { type CommandResult, failedResult } from '../types/command-result.js';
import type { ExecuteTaskOptions, SingleRun, TaskOutcome } from './execute-task-types.js';
import { runOnce } from './run-once.js';
import { failedBeforeRun, summary, toOutcome } from './task-outcome.js';
import type { Task } from './types.js';
import { withVars } from './vars.js';

export type { ExecuteTaskOptions, TaskOutcome } from './execute-task-types.js';
export { OMIT } from './omit.js';

/**
 * Runs one task on one host: when, loop (with per-item when), retries/until, changed_when,
 * failed_when, ignore_errors, become, environment, check mode and register. Connection loss
 * (a ConnectionError) makes the host unreachable. The engine reuses this for plan steps.
 *
 * Here: the loop over items (runLoop) and the one attempt loop (runWithRetries); one module run is
 * run-once.ts, the registered result task-outcome.ts.
 */
export async function executeTask(options: ExecuteTaskOptions): Promise<TaskOutcome> {
  const { task, vars } = options;
  const check = task.checkMode ?? options.check ?? false;
  const finish = (run: Parameters<typeof toOutcome>[2]) => toOutcome(task, options.host.name, run);
  if (task.loop !== undefined) return runLoop(options, check);
  const decided = outcomeOfWhen(task, options.host.name, vars);
  if (decided) return decided;
  return finish(await runWithRetries(options, vars, check));
}

/**
 * The outcome a task's `when` decides without running anything: skipped when it is false, failed
 * when it cannot be evaluated; undefined when the task must run (no `when`, a true one, or a loop,
 * whose `when` is per item). Ansible evaluates it before it connects (TaskExecutor._execute checks
 * the conditional before _get_connection, ansible/ansible lib/ansible/executor/task_executor.py), so
 * a skipped task never waits for its host or its delegate_to host to answer.
 */
export function outcomeOfWhen(
  task: ExecuteTaskOptions['task'],
  hostName: string,
  vars: Record<string, unknown>,
): TaskOutcome | undefined {
  if (task.loop !== undefined || task.when === undefined) return undefined;
  const finish = (run: Parameters<typeof toOutcome>[2]) => toOutcome(task, hostName, run);
  try {
    if (evaluateCondition(task.when, vars)) return undefined;
  } catch (error) {
    return finish(
      failedBeforeRun(
        `The conditional check '${String(task.when)}' failed. The error was: ${(error as Error).message}`,
      ),
    );
  }
  return finish({
    registered: {
      changed: false,
      skipped: true,
      skip_reason: 'Conditional result was False',
      false_condition: task.when,
    },
    results: [],
    unreachable: false,
    rebootRequired: false,
    attempts: 0,
  });
}

/**
 * Runs a looping task: the loop is rendered, then each item runs (with retries) when the task's
 * `when` holds for it. The registered value is Ansible's: `results` per item, changed/failed if
 * any item was. An unreachable host ends the loop at once.
 */
async function runLoop(options: ExecuteTaskOptions, check: boolean): Promise<TaskOutcome> {
  const { task, vars } = options;
  const finish = (run: Parameters<typeof toOutcome>[2]) => toOutcome(task, options.host.name, run);
  let items: unknown;
  try {
    items = renderValue(task.loop, vars);
  } catch (error) {
    return finish(failedBeforeRun(`cannot evaluate the loop: ${(error as Error).message}`));
  }
  if (typeof items === 'string' && task.loopFlatten) items = [items];
  if (!Array.isArray(items)) {
    return finish(
      failedBeforeRun(
        `Invalid data passed to 'loop', it requires a list, got this instead: ${JSON.stringify(items)}`,
      ),
    );
  }
  if (task.loopFlatten) items = (items as unknown[]).flatMap((i) => (Array.isArray(i) ? i : [i]));
  const list = items as unknown[];
  const itemResults: Record<string, unknown>[] = [];
  const results: CommandResult[] = [];
  const facts: Record<string, unknown> = {};
  let rebootRequired = false;
  let attempts = 0;
  for (let index = 0; index < list.length; index++) {
    if (options.signal?.aborted) break;
    const item = list[index];
    const extra: Record<string, unknown> = { [task.loopVar]: item, ansible_loop_var: task.loopVar };
    if (task.indexVar) extra[task.indexVar] = index;
    const itemVars = withVars(vars, extra);
    let holds = true;
    try {
      holds = task.when === undefined || evaluateCondition(task.when, itemVars);
    } catch (error) {
      itemResults.push({
        [task.loopVar]: item,
        changed: false,
        failed: true,
        msg: `The conditional check failed. The error was: ${(error as Error).message}`,
      });
      continue;
    }
    if (!holds) {
      itemResults.push({
        [task.loopVar]: item,
        changed: false,
        skipped: true,
        skip_reason: 'Conditional result was False',
      });
      continue;
    }
    const run = await runWithRetries(options, itemVars, check);
    attempts += run.attempts;
    results.push(...run.results);
    Object.assign(facts, run.facts);
    rebootRequired ||= run.rebootRequired;
    itemResults.push({ ...run.registered, [task.loopVar]: item, ansible_loop_var: task.loopVar });
    if (run.unreachable)
      return finish({
        registered: {
          results: itemResults,
          changed: false,
          failed: true,
          unreachable: true,
          msg: run.registered['msg'],
        },
        results,
        facts,
        unreachable: true,
        rebootRequired,
        attempts,
      });
  }
  const anyFailed = itemResults.some((r) => r['failed'] === true);
  const registered: Record<string, unknown> = {
    results: itemResults,
    changed: itemResults.some((r) => r['changed'] === true),
    failed: anyFailed,
    msg: anyFailed ? 'One or more items failed' : 'All items completed',
  };
  if (itemResults.length > 0 && itemResults.every((r) => r['skipped'] === true)) registered['skipped'] = true;
  if (itemResults.length === 0) {
    registered['skipped'] = true;
    registered['skip_reason'] = 'No items in the list';
  }
  return finish({ registered, results, facts, unreachable: false, rebootRequired, attempts });
}

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
async function runWithRetries(
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
