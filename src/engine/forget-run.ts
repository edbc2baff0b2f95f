import { rm } from 'node:fs/promises';
import { secretsPath } from './secrets-store.js';
import { statePath } from './state.js';

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
