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
