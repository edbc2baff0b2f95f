import { evaluateCondition } from '../template/index.js';
import { abortableSleep as sleep } from '../timing/abortable-sleep.js';
import type { CommandResult } from '../types/command-result.js';
import type { ExecuteTaskOptions, SingleRun } from './execute-task-types.js';
import { runOnce } from './run-once.js';
import { summary } from './task-outcome.js';
import { withVars } from './vars.js';

/** Runs once, then again while `until` is false (or, without `until`, while it fails and retries remain). */
export async function runWithRetries(
  options: ExecuteTaskOptions,
  vars: Record<string, unknown>,
  check: boolean,
): Promise<SingleRun & { attempts: number }> {
  const { task } = options;
  const hasUntil = task.until !== undefined;
  const retries = task.retries ?? (hasUntil ? 3 : 0);
  const maxAttempts = Math.max(1, retries + 1);
  let delayMs = (task.delay ?? (hasUntil ? 5 : 1)) * 1000;
  const results: CommandResult[] = [];
  for (let attempt = 1; ; attempt++) {
    const run = await runOnce(options, vars, check);
    results.push(...run.results);
    if (run.unreachable || run.registered['skipped'] === true) return { ...run, results, attempts: attempt };
    let done: boolean;
    if (hasUntil) {
      const bound = task.register ? withVars(vars, { [task.register]: run.registered }) : vars;
      try {
        done = evaluateCondition(task.until, bound);
      } catch (error) {
        run.registered['failed'] = true;
        run.registered['msg'] = `The conditional check failed. The error was: ${(error as Error).message}`;
        return { ...run, results, attempts: attempt };
      }
    } else done = run.registered['failed'] !== true;
    if (retries > 0) run.registered['attempts'] = attempt;
    if (done || attempt >= maxAttempts || options.signal?.aborted) {
      if (!done && hasUntil) {
        run.registered['failed'] = true;
        run.registered['msg'] =
          `${run.registered['msg'] ? `${run.registered['msg']}; ` : ''}until condition not met after ${attempt} attempts`;
      }
      return { ...run, results, attempts: attempt };
    }
    options.onRetry?.({
      attempt: attempt + 1,
      delayMs,
      result: run.results.at(-1) ?? summary(task, options.host.name, run.registered),
    });
    await sleep(delayMs, options.signal);
    delayMs *= task.backoff ?? 1;
  }
}
