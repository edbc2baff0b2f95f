import { cp } from 'node:fs/promises';
import { get } from 'node:http';
import { join } from 'node:path';
import { beforeAll, inject } from 'vitest';
import { ClusterState } from '../../fixtures/lab/cluster-state.js';
import { testTempDir } from '../helpers/temp.js';
import { SHARED_CLUSTER_BUILD_LIMIT_MS, type SharedCluster } from '../setup/shared-cluster-types.js';

export type { SharedCluster } from '../setup/shared-cluster-types.js';

/**
 * The e2e tier's shared cluster (test/setup/shared-cluster.ts builds it once per run for the files
 * in SHARED_CLUSTER_READERS), once it is built: the setup answers over its socket when the build
 * ends, passed or failed. A reader only reads it: whatever it writes goes to
 * {@link privateClusterDir}, and the setup fails the run if the shared directory changed. Call it
 * from a hook with {@link SHARED_CLUSTER_WAIT_MS}: the build may still be running.
 */
export async function sharedCluster(): Promise<SharedCluster> {
  const where = inject('sharedCluster');
  if (!where)
    throw new Error(
      'no shared cluster: run this file through the e2e project of test/vitest.config.ts, and list it in SHARED_CLUSTER_READERS (test/setup/shared-cluster-types.ts)',
    );
  const body = await new Promise<string>((answered, failed) => {
    const request = get({ socketPath: where.socket, path: '/' }, (response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => {
        text += chunk;
      });
      response.on('end', () => answered(text));
      response.on('error', failed);
    });
    request.on('error', failed);
  });
  const answer = JSON.parse(body) as { cluster?: SharedCluster; error?: string };
  if (!answer.cluster) throw new Error(`the shared cluster was not built: ${answer.error}`);
  return answer.cluster;
}

/** How long a reader's hook waits for {@link sharedCluster}: the build's limit and a minute. */
const SHARED_CLUSTER_WAIT_MS = SHARED_CLUSTER_BUILD_LIMIT_MS + 60_000;

/**
 * Waits for the shared cluster before the tests of the calling `describe` (a hook of
 * {@link SHARED_CLUSTER_WAIT_MS}); the returned function gives it to those tests.
 */
export function useSharedCluster(): () => SharedCluster {
  let cluster: SharedCluster | undefined;
  beforeAll(async () => {
    cluster = await sharedCluster();
  }, SHARED_CLUSTER_WAIT_MS);
  return () => {
    if (!cluster)
      throw new Error('no shared cluster: useSharedCluster() belongs in the describe of the test');
    return cluster;
  };
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
