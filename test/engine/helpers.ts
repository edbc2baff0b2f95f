import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { pollUntil } from '../../scripts/lab/poll.js';
import { runClusterPlan } from '../../src/cluster/run-plan.js';
import { runPlan } from '../../src/engine/index.js';
import type { RunPlanOptions } from '../../src/engine/types.js';
import type { TransportFactory } from '../../src/executor/transport-pool.js';
import { LocalTransport } from '../../src/transport/local/index.js';
import type { RunEvent } from '../../src/types/events.js';
import type { InventoryHost } from '../../src/types/inventory.js';
import type { Plan, PlanStep, PlanTask } from '../../src/types/plan.js';

/** Local "hosts": distinct inventory names, all run as local processes. */
export function localHosts(...names: string[]): InventoryHost[] {
  return names.map((name) => ({
    name,
    address: '127.0.0.1',
    os: 'linux',
    connection: 'local',
    role: 'worker',
    group: 'workers',
  }));
}

/** Real local processes for every host, named after the host. */
export const localTransports: TransportFactory = (host) => new LocalTransport(host.name);

/** A `shell` step. */
export function shell(name: string, cmd: string, extra: Partial<PlanStep> = {}): PlanStep {
  return { name, module: 'shell', args: { cmd }, ...extra };
}

/** A task (implemented unless said otherwise). */
export function task(
  name: string,
  needs: string[],
  hosts: string[],
  steps: PlanStep[],
  extra: Partial<PlanTask> = {},
): PlanTask {
  return { name, description: name, needs, hosts, steps, implemented: true, ...extra };
}

export function makePlan(
  tasks: PlanTask[],
  hosts: InventoryHost[] = [],
  vars: Record<string, unknown> = {},
): Plan {
  return { cluster: 'lab', hosts, tasks, vars };
}

/** Collects events; `of(type)` filters them. */
export function recorder() {
  const events: RunEvent[] = [];
  return {
    events,
    onEvent: (event: RunEvent) => events.push(event),
    of<T extends RunEvent['type']>(type: T): Extract<RunEvent, { type: T }>[] {
      return events.filter((e): e is Extract<RunEvent, { type: T }> => e.type === type);
    },
    /** Names of the tasks that started, in order. */
    started(): string[] {
      return this.of('task-start').map((e) => e.task);
    },
  };
}

/**
 * Runs `plan` as every command runs one (runClusterPlan: the engine with the playbook step
 * executor) with real local processes for every host, recording its events; `options` add to or
 * replace any of runPlan's options (another `onEvent` replaces the recorder). An `executeStep`
 * replaces the step executor, for tests of the engine's own scheduling around a step.
 */
export async function runLocally(plan: Plan, clusterDir: string, options: Partial<RunPlanOptions> = {}) {
  const events = recorder();
  const { executeStep, ...rest } = options;
  const run = { plan, clusterDir, transports: localTransports, onEvent: events.onEvent, ...rest };
  const summary = await (executeStep ? runPlan({ ...run, executeStep }) : runClusterPlan(run));
  return { summary, events };
}

export const readJson = async (path: string) => JSON.parse(await readFile(path, 'utf8'));

/** Lines of a file, or none when it does not exist. */
export async function lines(path: string): Promise<string[]> {
  try {
    return (await readFile(path, 'utf8')).split('\n').filter((l) => l !== '');
  } catch {
    return [];
  }
}

/** Polls until `check` is true (for a marker file a child process writes); fails after `ms`. */
export async function waitFor(
  check: () => Promise<boolean> | boolean,
  ms = 10_000,
  what = 'condition',
): Promise<void> {
  if (!(await pollUntil(check, { timeoutMs: ms, intervalMs: 25 })))
    throw new Error(`timed out waiting for ${what}`);
}

/**
 * True while a process runs. A killed orphan can stay a zombie here (PID 1 does not always
 * reap), so a zombie counts as gone.
 */
export function isRunning(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.charAt(stat.lastIndexOf(')') + 2) !== 'Z';
  } catch {
    return false;
  }
}
