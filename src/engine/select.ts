import { UsageError } from '../errors/index.js';
import { ancestorsOf, descendantsOf, type TaskGraph } from '../plan/graph.js';

/** The task names a run was asked to stop at or redo from. */
export interface SelectOptions {
  stopAfter?: string;
  stopBefore?: string;
  from?: string;
}

/** Which tasks a run may start, before looking at what the state says is done. */
export interface Selection {
  /** Tasks this run may run (done ones are still skipped). Closed under `needs`. */
  selected: Set<string>;
  /** Tasks left out by stopAfter/stopBefore, with the reason. */
  excluded: Map<string, 'stop-after' | 'stop-before'>;
  /** Tasks `from` forces to run again: the task and everything that depends on it. */
  redo: Set<string>;
}

/**
 * Applies --stop-after, --stop-before and --from. Semantics (Kubeinit's stop_after, made exact
 * for a graph): `stopAfter: T` runs only T and the tasks T needs (transitively) — independent
 * branches that T does not need are not started; `stopBefore: T` runs only the tasks T needs,
 * not T. Both together run the intersection. `from: T` marks T and every task that depends on
 * it as not done. Unknown names throw a UsageError listing the valid names, before anything runs.
 */
export function selectTasks(graph: TaskGraph, options: SelectOptions): Selection {
  const names = graph.tasks.map((t) => t.name);
  for (const [flag, name] of [
    ['stop-after', options.stopAfter],
    ['stop-before', options.stopBefore],
    ['from', options.from],
  ] as const) {
    if (name !== undefined && !graph.byName.has(name)) {
      throw new UsageError(`unknown task "${name}" for --${flag}; valid tasks: ${names.join(', ')}`);
    }
  }
  const selected = new Set(names);
  const excluded = new Map<string, 'stop-after' | 'stop-before'>();
  if (options.stopAfter !== undefined) {
    const keep = ancestorsOf(graph, options.stopAfter).add(options.stopAfter);
    for (const name of names) if (!keep.has(name)) exclude(name, 'stop-after');
  }
  if (options.stopBefore !== undefined) {
    const keep = ancestorsOf(graph, options.stopBefore);
    for (const name of names) if (!keep.has(name)) exclude(name, 'stop-before');
  }
  const redo = new Set<string>();
  if (options.from !== undefined) {
    redo.add(options.from);
    for (const name of descendantsOf(graph, options.from)) redo.add(name);
  }
  return { selected, excluded, redo };

  function exclude(name: string, reason: 'stop-after' | 'stop-before') {
    selected.delete(name);
    if (!excluded.has(name)) excluded.set(name, reason);
  }
}
