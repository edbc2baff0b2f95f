import { evaluateCondition, renderValue } from '../template/index.js';
import type { CommandResult } from '../types/command-result.js';
import type { ExecuteTaskOptions, TaskOutcome } from './execute-task-types.js';
import { runWithRetries } from './run-with-retries.js';
import { failedBeforeRun, toOutcome } from './task-outcome.js';
import { withVars } from './vars.js';

/**
 * Runs a looping task: the loop is rendered, then each item runs (with retries) when the task's
 * `when` holds for it. The registered value is Ansible's: `results` per item, changed/failed if
 * any item was. An unreachable host ends the loop at once.
 */
export async function runLoop(options: ExecuteTaskOptions, check: boolean): Promise<TaskOutcome> {
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
