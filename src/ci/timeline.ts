import { ancestorsOf, buildGraph } from '../plan/graph.js';
import type { Plan } from '../types/plan.js';
import type { Phase } from './summary-types.js';

/** The build task every machine-making task leads to: it and what it needs are the provision phase. */
const LAST_PROVISION_TASK = 'wait-for-hosts';
const VERIFY_TASK = 'verify';

/**
 * The phase of each task of the build plan: `wait-for-hosts` and everything it needs (provider,
 * network, machines) provision; `verify` verifies; the rest builds. Works for any provider's
 * plan, whatever provisioning tasks it has.
 */
export function buildPhases(plan: Plan): Map<string, Phase> {
  const phases = new Map<string, Phase>();
  const graph = buildGraph(plan);
  const provision = graph.byName.has(LAST_PROVISION_TASK)
    ? new Set([LAST_PROVISION_TASK, ...ancestorsOf(graph, LAST_PROVISION_TASK)])
    : new Set<string>();
  for (const task of plan.tasks) {
    phases.set(
      task.name,
      provision.has(task.name) ? 'provision' : task.name === VERIFY_TASK ? 'verify' : 'build',
    );
  }
  return phases;
}

/** What the timeline needs of a task: when it ran, after what. Times in ms since the run started. */
export interface TimedTask {
  name: string;
  needs: string[];
  /** Which engine run it belongs to; a later run's first tasks follow the earlier run's last one. */
  run: number;
  startMs?: number;
  endMs?: number;
}

/**
 * The critical path this run actually took: from the task that ended last, back through the need
 * that ended last before it (what it waited for), to a task that waited for nothing. A task with
 * no needs in a later run (teardown) continues from the earlier run's last task. Unlike
 * plan/critical-path.ts (the longest chain by durations, a yardstick for the scheduler), this is
 * observed: waits for forks or locks show up as gaps on it.
 */
export function observedCriticalPath(tasks: readonly TimedTask[]): string[] {
  const ran = tasks.filter((t) => t.startMs !== undefined && t.endMs !== undefined);
  const byName = new Map(ran.map((t) => [t.name, t]));
  const latest = (candidates: TimedTask[]) =>
    candidates.reduce<TimedTask | undefined>(
      (best, t) => (best === undefined || t.endMs! > best.endMs! ? t : best),
      undefined,
    );
  const path: string[] = [];
  let current = latest(ran);
  while (current) {
    path.unshift(current.name);
    const from: TimedTask = current;
    const needs = from.needs.flatMap((name) => (byName.has(name) ? [byName.get(name)!] : []));
    current =
      needs.length > 0
        ? latest(needs)
        : latest(ran.filter((t) => t.run < from.run && t.endMs! <= from.startMs!));
  }
  return path;
}

/**
 * When each task was ready to start: when the last of its needs ended, or when its run started.
 * `runStarts[i]` is the start of run i (ms since the CI run started).
 */
export function readyTimes(tasks: readonly TimedTask[], runStarts: readonly number[]): Map<string, number> {
  const ends = new Map(tasks.map((t) => [t.name, t.endMs]));
  const ready = new Map<string, number>();
  for (const task of tasks) {
    const needEnds = task.needs.map((n) => ends.get(n)).filter((e): e is number => e !== undefined);
    const runStart = runStarts[task.run] ?? 0;
    ready.set(task.name, needEnds.length > 0 ? Math.max(runStart, ...needEnds) : runStart);
  }
  return ready;
}
