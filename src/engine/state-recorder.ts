import type { InventoryHost } from '../types/inventory.js';
import type { Plan } from '../types/plan.js';
import type { OutputStore } from './outputs.js';
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

  /** A state for this plan, carrying over tasks, outputs and extra inventory from the previous one. */
  static initial(
    plan: Plan,
    previous: ClusterState | undefined,
    outputs: OutputStore,
    startedAt: string,
  ): ClusterState {
    const inventory = new Map<string, InventoryHost>();
    for (const host of previous?.inventory ?? []) inventory.set(host.name, host);
    for (const host of plan.hosts) inventory.set(host.name, host);
    return {
      version: STATE_VERSION,
      cluster: plan.cluster,
      planHash: planHash(plan),
      tasks: { ...previous?.tasks },
      inventory: [...inventory.values()],
      outputs: outputs.outputs,
      lastRun: { status: 'running', startedAt },
    };
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
