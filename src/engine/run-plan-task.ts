import { NotImplementedError } from '../errors/index.js';
import type { TransportPool } from '../executor/transport-pool.js';
import type { InventoryHost } from '../types/inventory.js';
import type { PlanTask } from '../types/plan.js';
import { inSlots, type Limiter } from './limiter.js';
import type { OutputStore } from './outputs.js';
import { type HostRunContext, type HostRunResult, RunOnceGate, runHost } from './run-host.js';
import { StepThrottles } from './throttle.js';
import type { StepFailure } from './types.js';

/** How a task ended in this run. */
export interface TaskRunResult {
  status: 'done' | 'failed' | 'interrupted' | 'no-hosts';
  error?: string;
  failures: StepFailure[];
  startedAt: string;
  finishedAt: string;
  durationMs: number;
}

/** What runTask needs from the engine. */
export interface TaskRunContext
  extends Omit<HostRunContext, 'task' | 'host' | 'hostIndex' | 'gate' | 'throttles'> {
  pool: TransportPool;
  outputs: OutputStore;
  limiter: Limiter;
  now: () => Date;
}

/**
 * Runs one task: its steps on each of its hosts, hosts in parallel within the global forks
 * limit. A task not built yet fails with "not implemented yet: <task>"; a task without hosts has
 * nothing to do. Emits task-start and task-end (interrupted tasks end as failed, "interrupted").
 */
export async function runTask(ctx: TaskRunContext, task: PlanTask): Promise<TaskRunResult> {
  const started = ctx.now();
  const finish = (
    status: TaskRunResult['status'],
    failures: StepFailure[],
    error?: string,
  ): TaskRunResult => {
    const ended = ctx.now();
    const durationMs = ended.getTime() - started.getTime();
    if (status === 'no-hosts') ctx.emit({ type: 'task-skip', task: task.name, reason: 'no-hosts' });
    else if (status === 'done') ctx.emit({ type: 'task-end', task: task.name, status: 'done', durationMs });
    else
      ctx.emit({ type: 'task-end', task: task.name, status: 'failed', error: error ?? status, durationMs });
    return {
      status,
      failures,
      startedAt: started.toISOString(),
      finishedAt: ended.toISOString(),
      durationMs,
      ...(error === undefined ? {} : { error }),
    };
  };

  if (!task.implemented) {
    ctx.emit({ type: 'task-start', task: task.name, hosts: task.hosts });
    return finish('failed', [], new NotImplementedError(task.name).message);
  }
  if (task.hosts.length === 0) return finish('no-hosts', []);

  ctx.emit({ type: 'task-start', task: task.name, hosts: task.hosts });
  const gate = new RunOnceGate();
  const throttles = new StepThrottles();
  // The first host runs the runOnce steps the others wait for: inSlots starts hosts in order.
  const results = await inSlots(
    task.hosts,
    ctx.limiter,
    (name, hostIndex): Promise<HostRunResult> =>
      runHost({ ...ctx, task, host: ctx.hosts.get(name) as InventoryHost, hostIndex, gate, throttles }),
  );
  const failures = results.flatMap((r) => (r.failure && r.status !== 'ok' ? [r.failure] : []));
  const failed = results.find((r) => r.status === 'failed' || r.status === 'unreachable');
  if (failed) return finish('failed', failures, failed.message ?? `task ${task.name} failed`);
  if (results.some((r) => r.status === 'interrupted')) return finish('interrupted', failures, 'interrupted');
  return finish('done', failures);
}
