import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ClusterState } from '../../fixtures/lab/cluster-state.js';
import { adminKubeconfig } from '../../fixtures/lab/standins/tools/kubeconfig.js';
import { testTempDir } from '../helpers/temp.js';
import { applied, beforeTheFix, flannel, flannelCluster } from './flannel-helpers.js';
import { fakeHost } from './helpers.js';

// Issue 19 item 7, through the kubectl stand-in as install-flannel.yml runs it: `kubectl rollout
// status ds/kube-flannel-ds` waits for flanneld's lease with kubemix's manifest (readiness probe
// on /readyz), where the manifest before the fix reported the rollout done without one.

/** `kubectl -n kube-flannel rollout status ds/kube-flannel-ds --timeout=T` on cp1 of `state`. */
async function rolloutStatus(state: ClusterState, timeout: string) {
  const host = await fakeHost(state.dir, 'cp1', '10.233.1.2');
  const kubeconfig = join(await testTempDir('kubeconfig'), 'admin.conf');
  await writeFile(kubeconfig, adminKubeconfig((await state.cluster())!));
  return host.run('kubectl', [
    '--kubeconfig',
    kubeconfig,
    '-n',
    'kube-flannel',
    'rollout',
    'status',
    'ds/kube-flannel-ds',
    `--timeout=${timeout}`,
  ]);
}

describe('kubectl rollout status ds/kube-flannel-ds (lab stand-in)', () => {
  it('with every lease granted, kubemix manifest rolls out', async () => {
    const state = await applied(await flannelCluster(), flannel());
    expect(await rolloutStatus(state, '300s')).toEqual({
      code: 0,
      stdout: 'daemon set "kube-flannel-ds" successfully rolled out\n',
      stderr: '',
    });
  });

  it('without a lease (no pod subnet), the manifest before the fix reports done; kubemix manifest waits', async () => {
    const before = await applied(await flannelCluster(''), beforeTheFix());
    expect(await rolloutStatus(before, '10s')).toEqual({
      code: 0,
      stdout: 'daemon set "kube-flannel-ds" successfully rolled out\n',
      stderr: '',
    });
    const after = await applied(await flannelCluster(''), flannel());
    expect(await rolloutStatus(after, '1s')).toEqual({
      code: 1,
      stdout:
        'Waiting for daemon set "kube-flannel-ds" rollout to finish: 0 of 2 updated pods are available...\n',
      stderr: 'error: timed out waiting for the condition\n',
    });
  });
});
