import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { KubemixError } from '../errors/index.js';
import { writeFileAtomic } from '../fs/atomic-write.js';
import { PRIVATE_FILE_MODE } from '../fs/private-files.js';
import type { RunStatus } from '../types/events.js';
import type { InventoryHost } from '../types/inventory.js';
import type { Plan, PlanTask } from '../types/plan.js';
import type { HostAssignment, ProviderResource } from '../types/provision.js';

/** Version of the state file layout; bump when it changes incompatibly. */
export const STATE_VERSION = 1;

/** What the state remembers about one task. Only `done` tasks are skipped on a re-run. */
export interface TaskState {
  status: 'pending' | 'done' | 'failed';
  startedAt?: string;
  finishedAt?: string;
  /** Hash of the task's definition when it last ran, to notice a changed plan. */
  hash?: string;
}

/** The last run as the state saw it. `running` while a run is under way (or was killed). */
export interface LastRunState {
  status: RunStatus | 'running';
  startedAt: string;
  finishedAt?: string;
  failedTask?: string;
  message?: string;
}

/** `<clusterDir>/state.json`. Never holds secret values (those live in secrets.json). */
export interface ClusterState {
  version: number;
  cluster: string;
  /** Hash of every task's name, needs, hosts and steps. */
  planHash: string;
  tasks: Record<string, TaskState>;
  /** The hosts as last known: planned hosts with what providers assigned to them. */
  inventory: InventoryHost[];
  /** Registered outputs by host, then by name. */
  outputs: Record<string, Record<string, unknown>>;
  /**
   * Everything a provider made for the cluster (intent recorded before each create call): what
   * `down` destroys and `status` lists. Empty for static clusters.
   */
  resources: ProviderResource[];
  /** What providers assigned to hosts while creating them, by host name (read back on every run). */
  assignments: Record<string, HostAssignment>;
  lastRun?: LastRunState;
  /**
   * Set by a `kubemix down` that finished: the build is history (its tasks, outputs and secrets
   * forgotten), not a cluster. The next run's state starts without it.
   */
  tornDown?: TornDownState;
}

/** When a cluster was torn down, and the event logs of its last build and of the teardown. */
export interface TornDownState {
  at: string;
  /** The teardown's JSON-lines event log. */
  eventLog: string;
  /** The newest event log of the build that was torn down, when one was kept. */
  buildEventLog?: string;
}

const stateSchema = z.object({
  version: z.number().int(),
  cluster: z.string(),
  planHash: z.string(),
  tasks: z.record(
    z.string(),
    z.object({
      status: z.enum(['pending', 'done', 'failed']),
      startedAt: z.string().optional(),
      finishedAt: z.string().optional(),
      hash: z.string().optional(),
    }),
  ),
  inventory: z.array(z.object({ name: z.string() }).passthrough()),
  outputs: z.record(z.string(), z.record(z.string(), z.unknown())),
  // Absent in states written before providers recorded resources.
  resources: z
    .array(
      z
        .object({
          provider: z.enum(['libvirt', 'ec2']),
          kind: z.string(),
          name: z.string(),
          location: z.string(),
          status: z.enum(['intended', 'created', 'deleted']),
          details: z.record(z.string(), z.string()).optional(),
          updatedAt: z.string().optional(),
        })
        .passthrough(),
    )
    .default([]),
  assignments: z.record(z.string(), z.object({ name: z.string() }).passthrough()).default({}),
  lastRun: z
    .object({
      status: z.enum(['succeeded', 'failed', 'stopped', 'interrupted', 'running']),
      startedAt: z.string(),
      finishedAt: z.string().optional(),
      failedTask: z.string().optional(),
      message: z.string().optional(),
    })
    .optional(),
  tornDown: z
    .object({ at: z.string(), eventLog: z.string(), buildEventLog: z.string().optional() })
    .optional(),
});

/** Path of a cluster's state file. */
export const statePath = (clusterDir: string) => join(clusterDir, 'state.json');

/**
 * Reads `<clusterDir>/state.json`; undefined when there is none yet. A file that is not valid
 * JSON or not a state file throws a KubemixError naming it, so it is never silently overwritten.
 */
export async function readState(clusterDir: string): Promise<ClusterState | undefined> {
  const path = statePath(clusterDir);
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new KubemixError(`cannot read state file ${path}: ${(error as Error).message}`, { cause: error });
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    throw new KubemixError(`state file ${path} is corrupt (not valid JSON); move it away to start over`, {
      cause: error,
    });
  }
  // One parse per command: zod's compiled fast path would cost more than it saves (spec/validate.ts).
  const parsed = stateSchema.safeParse(data, { jitless: true });
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue?.path.length ? `${issue.path.join('.')}: ` : '';
    throw new KubemixError(
      `state file ${path} is not a kubemix state file (${where}${issue?.message ?? 'invalid'})`,
    );
  }
  if (parsed.data.version !== STATE_VERSION) {
    throw new KubemixError(
      `state file ${path} has version ${parsed.data.version}; this kubemix reads version ${STATE_VERSION}`,
    );
  }
  return parsed.data as unknown as ClusterState;
}

/** Writes the state file atomically (temp file + fsync + rename), owner-only like everything in the cluster directory. */
export async function writeState(clusterDir: string, state: ClusterState): Promise<void> {
  await writeFileAtomic(statePath(clusterDir), `${JSON.stringify(state, null, 2)}\n`, PRIVATE_FILE_MODE);
}

const sha256 = (value: unknown) => createHash('sha256').update(JSON.stringify(value)).digest('hex');

/** Hash of what a task does: name, needs, hosts and steps (not its description). */
export function taskHash(task: PlanTask): string {
  return sha256({ name: task.name, needs: task.needs, hosts: task.hosts, steps: task.steps });
}

/** Hash of the whole plan's tasks, so a changed plan is noticed on a re-run. */
export function planHash(plan: Plan): string {
  return sha256(plan.tasks.map(taskHash));
}

/**
 * Whether the state describes a cluster that may exist: a task recorded, a provider resource not
 * deleted, or a run that never ended. A torn-down build, or a state whose build was forgotten by
 * an older `down`, is history.
 */
export function recordsLiveBuild(state: ClusterState | undefined): boolean {
  if (!state || state.tornDown) return false;
  return (
    Object.keys(state.tasks).length > 0 ||
    state.resources.some((r) => r.status !== 'deleted') ||
    state.lastRun?.status === 'running'
  );
}
