import { InternalError } from '../errors/index.js';
import type { Plan, PlanTask } from '../types/plan.js';

/** The task graph of a plan, indexed for scheduling: tasks by name, and edges both ways. */
export interface TaskGraph {
  /** Tasks in plan order. */
  tasks: PlanTask[];
  byName: Map<string, PlanTask>;
  /** Task name -> names of the tasks that need it directly. */
  dependents: Map<string, string[]>;
}

/**
 * Checks that a plan is a DAG (unique names, every `needs` names a task, no cycles) and indexes
 * it. A bad graph is a bug in the planner, not user input, so it throws an InternalError.
 */
export function buildGraph(plan: Plan): TaskGraph {
  const byName = new Map<string, PlanTask>();
  for (const task of plan.tasks) {
    if (byName.has(task.name)) throw new InternalError(`plan has two tasks named "${task.name}"`);
    byName.set(task.name, task);
  }
  const dependents = new Map<string, string[]>(plan.tasks.map((t) => [t.name, []]));
  for (const task of plan.tasks) {
    for (const need of task.needs) {
      if (!byName.has(need)) throw new InternalError(`task "${task.name}" needs unknown task "${need}"`);
      dependents.get(need)?.push(task.name);
    }
  }
  const cycle = findCycle(plan.tasks, byName);
  if (cycle) throw new InternalError(`plan has a dependency cycle: ${cycle.join(' needs ')}`);
  return { tasks: plan.tasks, byName, dependents };
}

/** Depth-first search along `needs`; returns the first cycle found as a closed path of names. */
function findCycle(tasks: PlanTask[], byName: Map<string, PlanTask>): string[] | undefined {
  const colour = new Map<string, 'grey' | 'black'>();
  const path: string[] = [];
  const visit = (name: string): string[] | undefined => {
    const state = colour.get(name);
    if (state === 'black') return undefined;
    if (state === 'grey') return [...path.slice(path.indexOf(name)), name];
    colour.set(name, 'grey');
    path.push(name);
    for (const need of byName.get(name)?.needs ?? []) {
      const cycle = visit(need);
      if (cycle) return cycle;
    }
    path.pop();
    colour.set(name, 'black');
    return undefined;
  };
  for (const task of tasks) {
    const cycle = visit(task.name);
    if (cycle) return cycle;
  }
  return undefined;
}

/** Every task `name` needs, directly or transitively (not including itself). */
export function ancestorsOf(graph: TaskGraph, name: string): Set<string> {
  const seen = new Set<string>();
  const stack = [...(graph.byName.get(name)?.needs ?? [])];
  while (stack.length > 0) {
    const next = stack.pop() as string;
    if (seen.has(next)) continue;
    seen.add(next);
    stack.push(...(graph.byName.get(next)?.needs ?? []));
  }
  return seen;
}

/** Every task that needs `name`, directly or transitively (not including itself). */
export function descendantsOf(graph: TaskGraph, name: string): Set<string> {
  const seen = new Set<string>();
  const stack = [...(graph.dependents.get(name) ?? [])];
  while (stack.length > 0) {
    const next = stack.pop() as string;
    if (seen.has(next)) continue;
    seen.add(next);
    stack.push(...(graph.dependents.get(next) ?? []));
  }
  return seen;
}

/**
 * Tasks in an order that respects `needs` (Kahn's algorithm; ready tasks keep plan order), for
 * printing plans and status. Builds (and so checks) the graph first.
 */
export function topologicalOrder(tasks: readonly PlanTask[]): PlanTask[] {
  const graph = buildGraph({ tasks: [...tasks] } as Plan);
  const waiting = new Map(tasks.map((t) => [t.name, t.needs.length]));
  const ordered: PlanTask[] = [];
  while (ordered.length < tasks.length) {
    const ready = tasks.filter((t) => waiting.get(t.name) === 0);
    for (const task of ready) {
      ordered.push(task);
      waiting.delete(task.name);
      for (const dependent of graph.dependents.get(task.name) ?? [])
        waiting.set(dependent, (waiting.get(dependent) ?? 0) - 1);
    }
  }
  return ordered;
}
