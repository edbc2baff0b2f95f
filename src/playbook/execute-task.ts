import { evaluateCondition } from '../template/index.js';
import type { ExecuteTaskOptions, TaskOutcome } from './execute-task-types.js';
import { runLoop } from './run-loop.js';
import { runWithRetries } from './run-with-retries.js';
import { failedBeforeRun, toOutcome } from './task-outcome.js';

export type { ExecuteTaskOptions, TaskOutcome } from './execute-task-types.js';
export { OMIT } from './omit.js';

/**
 * Runs one task on one host: when, loop (with per-item when), retries/until, changed_when,
 * failed_when, ignore_errors, become, environment, check mode and register. Connection loss
 * (a ConnectionError) makes the host unreachable. The engine reuses this for plan steps.
 *
 * The stages live beside this file: runLoop, runWithRetries, runOnce (one module run), toOutcome.
 */
export async function executeTask(options: ExecuteTaskOptions): Promise<TaskOutcome> {
  const { task, vars } = options;
  const check = task.checkMode ?? options.check ?? false;
  const finish = (run: Parameters<typeof toOutcome>[2]) => toOutcome(task, options.host.name, run);
  if (task.loop !== undefined) return runLoop(options, check);
  try {
    if (task.when !== undefined && !evaluateCondition(task.when, vars))
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
  } catch (error) {
    return finish(
      failedBeforeRun(
        `The conditional check '${String(task.when)}' failed. The error was: ${(error as Error).message}`,
      ),
    );
  }
  return finish(await runWithRetries(options, vars, check));
}
