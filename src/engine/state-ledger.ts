import { KubemixError } from '../errors/index.js';
import type { ProviderResource, ProvisionLedger, ProvisionUpdate } from '../types/provision.js';
import { applyProvisionUpdate, assignHost } from './provision.js';
import { type ClusterState, readState, statePath, writeState } from './state.js';

/**
 * A ledger over another run's state file: `down` keeps its own progress in teardown/ while the
 * resources it destroys are recorded in the build's state.json, the one truth about what exists.
 * The caller holds that cluster's lock. Writes are queued and atomic.
 */
export class StateFileLedger implements ProvisionLedger {
  private queue: Promise<void> = Promise.resolve();

  private constructor(
    private readonly clusterDir: string,
    private readonly state: ClusterState,
    private readonly now: () => Date,
  ) {}

  /** Opens the state of `clusterDir`; a cluster without one has nothing recorded to change. */
  static async open(clusterDir: string, now: () => Date = () => new Date()): Promise<StateFileLedger> {
    const state = await readState(clusterDir);
    if (!state) throw new KubemixError(`no state file ${statePath(clusterDir)}: nothing was built here`);
    return new StateFileLedger(clusterDir, state, now);
  }

  get resources(): readonly ProviderResource[] {
    return this.state.resources;
  }

  record(update: ProvisionUpdate): Promise<void> {
    applyProvisionUpdate(this.state, update, this.now().toISOString());
    for (const assignment of update.hosts ?? []) {
      const index = this.state.inventory.findIndex((h) => h.name === assignment.name);
      if (index >= 0) this.state.inventory[index] = assignHost(this.state.inventory[index]!, assignment);
    }
    const snapshot: ClusterState = structuredClone(this.state);
    const next = this.queue.then(() => writeState(this.clusterDir, snapshot));
    this.queue = next.catch(() => undefined);
    return next;
  }
}
