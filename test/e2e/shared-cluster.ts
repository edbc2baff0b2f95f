import { cp } from 'node:fs/promises';
import { join } from 'node:path';
import { inject } from 'vitest';
import { ClusterState } from '../../fixtures/lab/cluster-state.js';
import { testTempDir } from '../helpers/temp.js';
import type { SharedCluster } from '../setup/shared-cluster-types.js';

export type { SharedCluster } from '../setup/shared-cluster-types.js';

/**
 * The e2e tier's shared cluster (test/setup/shared-cluster.ts builds it once per run for the files
 * in SHARED_CLUSTER_READERS). A reader only reads it: whatever it writes goes to
 * {@link privateClusterDir}, and the setup fails the run if the shared directory changed.
 */
export function sharedCluster(): SharedCluster {
  const cluster = inject('sharedCluster');
  if (!cluster)
    throw new Error(
      'no shared cluster: run this file through the e2e project of test/vitest.config.ts, and list it in SHARED_CLUSTER_READERS (test/setup/shared-cluster-types.ts)',
    );
  return cluster;
}

/** The lab's Kubernetes state of the shared cluster, as the stand-ins keep it on disk. */
export const sharedClusterState = (cluster: SharedCluster) => ClusterState.open(cluster.stateDir);

/**
 * A copy of the shared cluster directory (modes kept) for a command that writes into its cluster
 * directory (`kubemix kubeconfig --merge` records the merge there), removed after the file.
 */
export async function privateClusterDir(cluster: SharedCluster): Promise<string> {
  const copy = join(await testTempDir('shared-copy'), cluster.name);
  await cp(cluster.clusterDir, copy, { recursive: true, preserveTimestamps: true });
  return copy;
}
