import type { InventoryHost } from '../types/inventory.js';
import type { Plan } from '../types/plan.js';
import type { ProvisionUpdate } from '../types/provision.js';
import type { OutputStore } from './outputs.js';
import { applyProvisionUpdate, assignHost } from './provision.js';
import { writeSecrets } from './secrets-store.js';
import {
  type ClusterState,
  type LastRunState,
  planHash,
  STATE_VERSION,
  type TaskState,
  writeState,
} from './state.js';

/**
 * Owns a run's state: the in-memory copy and its writes. Writes are queued so two tasks ending
 * together never race on the rename, and each write snapshots the state when it was asked for.
 */
export class StateRecorder {
  private queue: Promise<void> = Promise.resolve();

  constructor(
    private readonly clusterDir: string,
    readonly state: ClusterState,
    private readonly outputs: OutputStore,
  ) {}

  /**
   * A state for this plan, carrying over tasks, outputs, provider records and extra inventory from
   * the previous one. Planned hosts get what providers assigned to them in earlier runs.
   */
  static initial(
    plan: Plan,
    previous: ClusterState | undefined,
    outputs: OutputStore,
    startedAt: string,
  ): ClusterState {
    const assignments = structuredClone(previous?.assignments ?? {});
    const inventory = new Map<string, InventoryHost>();
    for (const host of previous?.inventory ?? []) inventory.set(host.name, host);
    for (const host of plan.hosts) inventory.set(host.name, assignHost(host, assignments[host.name]));
    return {
      version: STATE_VERSION,
      cluster: plan.cluster,
      planHash: planHash(plan),
      tasks: { ...previous?.tasks },
      inventory: [...inventory.values()],
      outputs: outputs.outputs,
      resources: structuredClone(previous?.resources ?? []),
      assignments,
      lastRun: { status: 'running', startedAt },
    };
  }

  /**
   * Applies provider records (resources, host assignments) to the state and writes it; resolves
   * once it is on disk.
   */
  recordProvision(update: ProvisionUpdate, now: string): Promise<void> {
    applyProvisionUpdate(this.state, update, now);
    for (const assignment of update.hosts ?? []) {
      const index = this.state.inventory.findIndex((h) => h.name === assignment.name);
      if (index >= 0) this.state.inventory[index] = assignHost(this.state.inventory[index]!, assignment);
    }
    return this.save();
  }

  setTask(name: string, task: TaskState): void {
    this.state.tasks[name] = task;
  }

  setLastRun(lastRun: LastRunState): void {
    this.state.lastRun = lastRun;
  }

  /** Queues an atomic write of state.json as it is now. */
  save(): Promise<void> {
    const snapshot: ClusterState = JSON.parse(JSON.stringify(this.state));
    return this.enqueue(() => writeState(this.clusterDir, snapshot));
  }

  /** Queues an atomic write of secrets.json (0600) as it is now. */
  saveSecrets(): Promise<void> {
    const snapshot = JSON.parse(JSON.stringify(this.outputs.secrets));
    return this.enqueue(() => writeSecrets(this.clusterDir, snapshot));
  }

  private enqueue(write: () => Promise<void>): Promise<void> {
    const next = this.queue.then(write);
    // A failed write is reported to its caller; later writes still run.
    this.queue = next.catch(() => undefined);
    return next;
  }
}
