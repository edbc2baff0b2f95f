import { inSlots, Limiter } from '../engine/limiter.js';
import { lineBuffer } from '../engine/line-buffer.js';
import { hiddenResult } from '../engine/no-log.js';
import { THROTTLE_NOT_INTEGER, Throttle, throttleValue } from '../engine/throttle.js';
import { ConnectionError } from '../errors/index.js';
import { renderString, renderValue } from '../template/index.js';
import type { Transport } from '../transport/types.js';
import type { InventoryHost } from '../types/inventory.js';
import { type ExecuteTaskOptions, executeTask, outcomeOfWhen, type TaskOutcome } from './execute-task.js';
import { hostScope, hostvarsOf } from './host-scope.js';
import { delegateHostNamed } from './implicit-localhost.js';
import { withPlayKeywords } from './play-keywords.js';
import { recordOutcome, shownMessage } from './record-outcome.js';
import type { PlaybookRun, PlayRun } from './run-types.js';
import { syntheticFailure } from './synthetic-failure.js';
import type { Task } from './types.js';

/**
 * Runs one task (or handler) on its targets, `forks` hosts at a time and at most `throttle`
 * inside the task, between a task-start and a task-end event. run_once runs it on the first
 * target only and books the outcome for all of them.
 */
export async function runTask(playRun: PlayRun, task: Task, targets: InventoryHost[]): Promise<void> {
  const { run, play } = playRun;
  const { options, emit } = run;
  const taskStarted = Date.now();
  const effective = withPlayKeywords(task, play);
  const runOn = task.runOnce ? targets.slice(0, 1) : targets;
  emit({ type: 'task-start', task: task.name, hosts: runOn.map((h) => h.name) });
  const hostvars = hostvarsOf(run);
  const throttle = new Throttle();
  let firstError: string | undefined;
  // Forks as `kubemix up` shares them out (engine/limiter.ts); one task runs at a time here.
  await inSlots(runOn, new Limiter(run.forks), async (host) => {
    if (options.signal?.aborted) return;
    const vars = hostScope(playRun, host, effective, hostvars);
    // Ansible ignores throttle on a run_once task (strategy/__init__.py).
    const limit = task.runOnce ? 0 : hostThrottle(effective, vars);
    if (limit === undefined) {
      const outcome = syntheticFailure(effective, host, THROTTLE_NOT_INTEGER);
      firstError ??= `${host.name}: ${THROTTLE_NOT_INTEGER}`;
      recordOutcome(playRun, effective, host, outcome, [host]);
      return;
    }
    const release = await throttle.acquire(limit);
    try {
      if (options.signal?.aborted) return;
      emit({ type: 'step-start', task: task.name, host: host.name, step: task.name, attempt: 1 });
      const outcome = await runOnHost(run, effective, host, vars);
      if (outcome.failed && !outcome.ignored)
        firstError ??= `${host.name}: ${shownMessage(effective, outcome, run.redactor) ?? 'failed'}`;
      recordOutcome(playRun, effective, host, outcome, task.runOnce ? targets : [host]);
    } finally {
      release();
    }
  });
  emit({
    type: 'task-end',
    task: task.name,
    status: firstError ? 'failed' : 'done',
    ...(firstError ? { error: firstError } : {}),
    durationMs: Date.now() - taskStarted,
  });
}

/** The task's `throttle` for one host (templates rendered with its vars): 0 for none, undefined when not an integer. */
function hostThrottle(task: Task, vars: Record<string, unknown>): number | undefined {
  if (task.throttle === undefined) return 0;
  try {
    return throttleValue(
      typeof task.throttle === 'string' ? renderValue(task.throttle, vars) : task.throttle,
    );
  } catch {
    return undefined;
  }
}

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
    const delegate = delegateHostNamed(name, (named) => run.hostByName.get(named));
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
