import { descendantsOf, type TaskGraph } from '../plan/graph.js';
import type { Plan } from '../types/plan.js';
import { type ClusterState, taskHash } from './state.js';

/** What a re-run takes over from the state. */
export interface ResumePoint {
  /** Tasks done in the state and not to be redone: skipped as already-done. */
  done: Set<string>;
  /** Tasks to run again although the state says done (from --from or a changed plan). */
  redo: Set<string>;
  /** Done tasks whose definition (needs, hosts, steps) changed since they ran. */
  changedTasks: string[];
}

/**
 * Works out where a run resumes: the state's done tasks, minus the `from` task and its
 * dependents, minus tasks whose definition changed since they ran and their dependents (what
 * they produced may no longer be what later tasks expect).
 */
export function resumePoint(
  plan: Plan,
  graph: TaskGraph,
  previous: ClusterState | undefined,
  from: Set<string>,
): ResumePoint {
  const wasDone = (name: string) => previous?.tasks[name]?.status === 'done';
  const changedTasks = plan.tasks
    .filter((t) => {
      const hash = previous?.tasks[t.name]?.hash;
      return wasDone(t.name) && hash !== undefined && hash !== taskHash(t);
    })
    .map((t) => t.name);
  const redo = new Set(from);
  for (const name of changedTasks) {
    redo.add(name);
    for (const dependent of descendantsOf(graph, name)) redo.add(dependent);
  }
  const done = new Set(plan.tasks.map((t) => t.name).filter((name) => wasDone(name) && !redo.has(name)));
  return { done, redo, changedTasks };
}
