import type { PlanTask } from '../types/plan.js';
import { topologicalOrder } from './graph.js';

/** The longest chain of tasks through the graph, by the given task durations. */
export interface CriticalPath {
  tasks: string[];
  durationMs: number;
}

/**
 * The critical path of a plan: the chain of `needs` whose durations add up to the most. No
 * schedule can finish sooner than this, so it is the yardstick for the engine's makespan.
 * Tasks without a duration count as 0 (skipped or not run).
 */
export function criticalPath(
  tasks: readonly PlanTask[],
  durationsMs: Readonly<Record<string, number>>,
): CriticalPath {
  const finish = new Map<string, { at: number; via?: string }>();
  for (const task of topologicalOrder(tasks)) {
    let start = 0;
    let via: string | undefined;
    // A task starts when its latest need finishes; that need is how the path reaches it.
    for (const need of task.needs) {
      const at = finish.get(need)?.at ?? 0;
      if (via === undefined || at > start) {
        start = at;
        via = need;
      }
    }
    finish.set(task.name, { at: start + (durationsMs[task.name] ?? 0), ...(via ? { via } : {}) });
  }
  let last: string | undefined;
  for (const [name, { at }] of finish) if (last === undefined || at > finish.get(last)!.at) last = name;
  const path: string[] = [];
  for (let name = last; name !== undefined; name = finish.get(name)?.via) path.unshift(name);
  return { tasks: path, durationMs: last === undefined ? 0 : finish.get(last)!.at };
}
