import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeLabSpec } from '../../fixtures/cluster-lab/lab-spec.js';
import { type MixedClusterLab, startMixedClusterLab } from '../../fixtures/cluster-lab/mixed-lab.js';
import { DEFAULT_KUBERNETES, OLDEST_TESTED_KUBERNETES } from '../helpers/kubernetes-test-versions.js';
import { kubemix, tempClusterDir } from './helpers.js';

// `kubemix up` at the default Kubernetes version, `down`, then `up` at the oldest supported minor
// on the SAME hosts, as a user who rebuilds a lab at another version: every node must run the
// older kubelet (the version-skew policy forbids a kubelet newer than the API server). What `down`
// leaves installed (kubelet.exe, kubeadm.exe and the kubelet service on Windows; the held kubelet,
// kubeadm and kubectl packages on Linux, as kubeadm reset leaves them) must not survive into the
// older cluster: prepare-windows asks the programs their release (fixtures/windows-sim models
// PrepareNode.ps1's second run), prepare-linux installs the older packages over the held ones
// (the lab's apt-get refuses a downgrade and a held package's change under -y unless told, as apt does).
let lab: MixedClusterLab;
let dir: string;

beforeAll(async () => {
  lab = await startMixedClusterLab({ controllers: 1, linuxWorkers: 1, windowsWorkers: 1, rebootDownMs: 300 });
  dir = await tempClusterDir();
});

afterAll(async () => {
  await lab?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** A spec at `version` whose controller is the lab's Linux host `controller`, with the Windows host. */
async function specAt(version: string, controller: string): Promise<string> {
  return writeLabSpec(dir, {
    name: 'rebuild-older',
    linuxHosts: lab.linux.hosts.filter((h) => h.name === controller),
    controllers: 1,
    windowsHosts: lab.windows.hosts,
    knownHostsPath: lab.linux.knownHostsPath,
    privateKeyPath: lab.linux.privateKeyPath,
    kubernetesVersion: version,
  });
}

const kubeletVersions = async () =>
  Object.fromEntries(
    (await lab.linux.cluster.nodes()).map((n) => [
      n.metadata.name,
      (n['status'] as { nodeInfo: { kubeletVersion: string } }).nodeInfo.kubeletVersion,
    ]),
  );

describe('rebuilding on the same Windows host at an older Kubernetes version', () => {
  it('ends with the older kubelet on the Windows node', {
    timeout: 600_000,
  }, async () => {
    expect(OLDEST_TESTED_KUBERNETES).not.toBe(DEFAULT_KUBERNETES);
    const clusterDir = join(dir, 'cluster');
    const newer = await specAt(DEFAULT_KUBERNETES, 'lab-01');
    const first = await kubemix([
      'up',
      newer,
      '--cluster-dir',
      clusterDir,
      '--stop-after',
      'join-windows-workers',
    ]);
    expect(first.stderr).toBe('');
    expect(first.exitCode).toBe(0);
    expect(await kubeletVersions()).toEqual({
      'lab-01': `v${DEFAULT_KUBERNETES}`,
      'win-01': `v${DEFAULT_KUBERNETES}`,
    });

    const down = await kubemix(['down', newer, '--cluster-dir', clusterDir]);
    expect(down.exitCode, down.stderr).toBe(0);

    const older = await specAt(OLDEST_TESTED_KUBERNETES, 'lab-01');
    const second = await kubemix([
      'up',
      older,
      '--cluster-dir',
      clusterDir,
      '--stop-after',
      'join-windows-workers',
    ]);
    expect(second.stderr).toBe('');
    expect(second.exitCode).toBe(0);
    expect(await kubeletVersions()).toEqual({
      'lab-01': `v${OLDEST_TESTED_KUBERNETES}`,
      'win-01': `v${OLDEST_TESTED_KUBERNETES}`,
    });
    expect((await kubemix(['down', older, '--cluster-dir', clusterDir])).exitCode).toBe(0);
  });
});
