import { homedir } from 'node:os';
import { join, resolve } from 'node:path';

/** Where a cluster's state lives unless the caller names a directory: $KUBEMIX_HOME or ~/.kubemix, then clusters/<name>. */
export function defaultClusterDir(name: string): string {
  const home = process.env['KUBEMIX_HOME'] ?? resolve(homedir(), '.kubemix');
  return resolve(home, 'clusters', name);
}

/** The admin kubeconfig `up` fetches into a cluster directory (init-control-plane's fetch step). */
export const adminConfPath = (clusterDir: string) => join(clusterDir, 'admin.conf');

/** Where `kubemix down` keeps its own run state, beside the build's. */
export const teardownDir = (clusterDir: string) => join(clusterDir, 'teardown');
