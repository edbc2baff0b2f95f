import type { InventoryHost } from '../types/inventory.js';
import type { ProvisionLedger } from '../types/provision.js';
import { assignHost } from './provision.js';
import { StateFileLedger } from './state-ledger.js';
import type { StateRecorder } from './state-recorder.js';

/**
 * Where provider modules record what they create: this run's state, or (for `down`, options.ledgerDir)
 * the build's. Host assignments also reach the run's inventory, so later tasks use them.
 */
export async function provisionLedger(
  run: { options: { ledgerDir?: string | undefined }; hosts: Map<string, InventoryHost> },
  recorder: StateRecorder,
  now: () => Date,
): Promise<ProvisionLedger> {
  const store: ProvisionLedger = run.options.ledgerDir
    ? await StateFileLedger.open(run.options.ledgerDir, now)
    : {
        get resources() {
          return recorder.state.resources;
        },
        record: (update) => recorder.recordProvision(update, now().toISOString()),
      };
  return {
    get resources() {
      return store.resources;
    },
    record: async (update) => {
      await store.record(update);
      for (const assignment of update.hosts ?? []) {
        const host = run.hosts.get(assignment.name);
        if (host) run.hosts.set(assignment.name, assignHost(host, assignment));
      }
    },
  };
}
