import type { PlanTask } from '../types/plan.js';

/**
 * Tasks in an order that respects `needs` (Kahn's algorithm, ties kept in plan order).
 * Throws a TypeError on unknown needs or cycles: a plan like that is a programmer error.
 */
export function topologicalOrder(tasks: readonly PlanTask[]): PlanTask[] {
  const byName = new Map(tasks.map((t) => [t.name, t]));
  const remaining = new Map(tasks.map((t) => [t.name, new Set(t.needs)]));
  for (const task of tasks) {
    for (const need of task.needs) if (!byName.has(need)) throw new TypeError(`task ${task.name} needs unknown task ${need}`);
  }
  const ordered: PlanTask[] = [];
  while (remaining.size > 0) {
    const ready = tasks.filter((t) => remaining.get(t.name)?.size === 0);
    if (ready.length === 0) throw new TypeError(`task graph has a cycle among: ${[...remaining.keys()].join(', ')}`);
    for (const task of ready) {
      ordered.push(task);
      remaining.delete(task.name);
      for (const needs of remaining.values()) needs.delete(task.name);
    }
  }
  return ordered;
}

/** Every task `name` transitively needs (not including itself). */
export function ancestorsOf(tasks: readonly PlanTask[], name: string): Set<string> {
  const byName = new Map(tasks.map((t) => [t.name, t]));
  const found = new Set<string>();
  const visit = (current: string) => {
    for (const need of byName.get(current)?.needs ?? []) {
      if (!found.has(need)) {
        found.add(need);
        visit(need);
      }
    }
  };
  visit(name);
  return found;
}

/** Every task that transitively needs `name` (not including itself). */
export function descendantsOf(tasks: readonly PlanTask[], name: string): Set<string> {
  const found = new Set<string>();
  let grew = true;
  while (grew) {
    grew = false;
    for (const task of tasks) {
      if (!found.has(task.name) && task.needs.some((n) => n === name || found.has(n))) {
        found.add(task.name);
        grew = true;
      }
    }
  }
  return found;
}
