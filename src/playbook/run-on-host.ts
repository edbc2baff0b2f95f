import { lineBuffer } from '../engine/line-buffer.js';
import { hiddenResult } from '../engine/no-log.js';
import { ConnectionError } from '../errors/index.js';
import { renderString } from '../template/index.js';
import type { Transport } from '../transport/types.js';
import type { InventoryHost } from '../types/inventory.js';
import { namesThisMachine } from '../types/localhost.js';
import { type ExecuteTaskOptions, executeTask, outcomeOfWhen, type TaskOutcome } from './execute-task.js';
import { IMPLICIT_LOCALHOST } from './implicit-localhost.js';
import type { PlaybookRun } from './run-types.js';
import { syntheticFailure } from './synthetic-failure.js';
import type { Task } from './types.js';

/**
 * Runs one task for one host: reads its `when`, finds where it runs (delegate_to), takes that host's connection
 * from the pool and streams the output as events. A connection refused makes the host
 * unreachable; its pooled transport is forgotten so a later play reconnects.
 */
export async function runOnHost(
  run: PlaybookRun,
  task: Task,
  host: InventoryHost,
  vars: Record<string, unknown>,
): Promise<TaskOutcome> {
  const { options, pool, emit } = run;
  // `when` before any connection, as Ansible: a skipped task never waits for a host to answer.
  const decided = outcomeOfWhen(task, host.name, vars);
  if (decided) return decided;
  let target = host;
  if (task.delegateTo) {
    let name: string;
    try {
      name = renderString(task.delegateTo, vars);
    } catch (error) {
      return syntheticFailure(task, host, `delegate_to: ${(error as Error).message}`);
    }
    const delegate = run.hostByName.get(name) ?? (namesThisMachine(name) ? IMPLICIT_LOCALHOST : undefined);
    if (!delegate)
      return syntheticFailure(task, host, `delegate_to: "${name}" is not a host of the inventory`);
    target = delegate;
  }
  let transport: Transport;
  try {
    transport = await pool.get(target);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    if (!(error instanceof ConnectionError))
      return syntheticFailure(task, host, `cannot connect to ${target.name}: ${message}`);
    return {
      ...syntheticFailure(task, host, message),
      status: 'unreachable',
      unreachable: true,
      ignored: false,
    };
  }
  const output = lineBuffer((stream, data) =>
    emit({ type: 'step-output', task: task.name, host: host.name, step: task.name, stream, data }),
  );
  const execOptions: ExecuteTaskOptions = {
    task,
    host,
    transport,
    vars,
    check: options.check === true,
    onOutput: output.push,
    // `attempt` is the attempt that failed, as the renderers say ("attempt N failed").
    onRetry: ({ attempt, delayMs, result }) =>
      emit({
        type: 'step-retry',
        task: task.name,
        host: host.name,
        step: task.name,
        attempt,
        delayMs,
        result: task.noLog ? hiddenResult(result) : result,
      }),
  };
  if (target !== host) execOptions.delegateHost = target;
  if (options.signal) execOptions.signal = options.signal;
  if (options.timeoutMs !== undefined) execOptions.timeoutMs = options.timeoutMs;
  const outcome = await executeTask(execOptions);
  output.flush();
  if (outcome.unreachable) await pool.forget(target.name);
  return outcome;
}
