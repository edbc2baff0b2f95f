import { THROTTLE_NOT_INTEGER, Throttle, throttleValue } from '../engine/throttle.js';
import { renderValue } from '../template/index.js';
import type { InventoryHost } from '../types/inventory.js';
import { hostScope, hostvarsOf } from './host-scope.js';
import { mapLimit } from './map-limit.js';
import { withPlayKeywords } from './play-keywords.js';
import { recordOutcome, shownMessage } from './record-outcome.js';
import { runOnHost } from './run-on-host.js';
import type { PlayRun } from './run-types.js';
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
  await mapLimit(runOn, run.forks, async (host) => {
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
