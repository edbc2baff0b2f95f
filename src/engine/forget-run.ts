import { rm } from 'node:fs/promises';
import { secretsPath } from './secrets-store.js';
import { readState, statePath, type TornDownState, writeState } from './state.js';

/**
 * Forgets what runs recorded in `dir`: its state.json and secrets.json (the run logs stay).
 * A complete `kubemix down` forgets the build, whose tasks and join tokens describe a cluster
 * that no longer exists, so the next `up` builds again (as `terraform apply` after `destroy`);
 * an `up` forgets the last teardown, so the next `down` cleans up again. The caller holds the
 * cluster lock.
 */
export async function forgetRun(dir: string): Promise<void> {
  await rm(statePath(dir), { force: true });
  await rm(secretsPath(dir), { force: true });
}

/**
 * After a teardown that finished: the build's state becomes history. Its tasks, outputs, host
 * assignments and secrets are forgotten (the next `up` builds again); what it records of the
 * teardown (when, and the event logs of the build and of the teardown) stays, with the build's
 * last run, so `status` and `ci` see a torn-down cluster, not a built one. The caller holds the
 * cluster lock.
 */
export async function forgetBuild(clusterDir: string, tornDown: TornDownState): Promise<void> {
  const state = await readState(clusterDir);
  if (!state) return;
  await writeState(clusterDir, {
    ...state,
    tasks: {},
    outputs: {},
    assignments: {},
    resources: state.resources.filter((r) => r.status !== 'deleted'),
    tornDown,
  });
  await rm(secretsPath(clusterDir), { force: true });
}
