import { InternalError, UsageError } from '../errors/index.js';
import { TransportPool } from '../executor/transport-pool.js';
import { buildGraph } from '../plan/graph.js';
import type { InventoryHost } from '../types/inventory.js';
import { LOCALHOST } from '../types/localhost.js';
import type { Plan } from '../types/plan.js';
import { type ConnectionSink, execute, type ListenerTrap } from './execute.js';
import { acquireLock } from './lock.js';
import { selectTasks } from './select.js';
import type { RunPlanOptions, RunSummary } from './types.js';

/** Default number of (task, host) units that run at once. */
export const DEFAULT_FORKS = 10;

/**
 * Runs a plan against a cluster directory and returns what happened.
 *
 * Tasks start when everything they need is done; each runs its steps on each of its hosts, at
 * most `forks` (task, host) units at a time across the run. The first task failure stops new
 * tasks from starting (running ones finish; dependents are reported skipped). State is written
 * atomically to `<clusterDir>/state.json` after every task, secret outputs only to
 * `secrets.json` (0600); a re-run skips tasks already done. See {@link selectTasks} for the
 * exact stopAfter/stopBefore/from semantics (stopAfter runs only the target and its ancestors).
 *
 * Throws before anything runs for bad options (UsageError), a bad graph (InternalError), a
 * locked cluster (ClusterLockedError) or a corrupt state file (KubemixError naming it). Task
 * failures and Ctrl-C (`signal`) are reported in the summary, never thrown.
 */
export async function runPlan(options: RunPlanOptions): Promise<RunSummary> {
  const forks = options.forks ?? DEFAULT_FORKS;
  if (!Number.isInteger(forks) || forks < 1)
    throw new UsageError(`forks must be a positive integer, got ${forks}`);
  const graph = buildGraph(options.plan);
  const hosts = inventoryByName(options.plan);
  const selection = selectTasks(graph, options);

  const lock = await acquireLock(options.clusterDir);
  // Connection reports become events once the run has its emitter (and redactor): see execute.
  const connections: ConnectionSink = {};
  const pool = new TransportPool(options.transports, (report) => connections.emit?.(report));
  const aborter = new AbortController();
  const onAbort = () => aborter.abort();
  if (options.signal?.aborted) aborter.abort();
  options.signal?.addEventListener('abort', onAbort, { once: true });
  const listener: ListenerTrap = {};
  let summary: RunSummary;
  try {
    summary = await execute({
      options,
      forks,
      graph,
      hosts,
      selection,
      pool,
      connections,
      aborter,
      listener,
    });
  } finally {
    options.signal?.removeEventListener('abort', onAbort);
    await pool.closeAll();
    await lock.release();
  }
  // A renderer that throws is a bug to report, but only once the state is saved and the lock gone.
  if (listener.error) throw listener.error.value;
  return summary;
}

/** Inventory hosts by name, adding the implicit `localhost`; a task naming an unknown host is a planner bug. */
function inventoryByName(plan: Plan): Map<string, InventoryHost> {
  const hosts = new Map(plan.hosts.map((h) => [h.name, h]));
  if (!hosts.has(LOCALHOST.name)) hosts.set(LOCALHOST.name, LOCALHOST);
  for (const task of plan.tasks) {
    for (const name of task.hosts) {
      if (!hosts.has(name)) throw new InternalError(`task "${task.name}" targets unknown host "${name}"`);
    }
    if (new Set(task.hosts).size !== task.hosts.length) {
      throw new InternalError(`task "${task.name}" lists a host twice`);
    }
  }
  return hosts;
}
