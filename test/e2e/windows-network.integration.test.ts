import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type MixedClusterLab, startMixedClusterLab } from '../../fixtures/cluster-lab/mixed-lab.js';
import type { KubeObject } from '../../fixtures/lab/cluster-state.js';
import { loadVersions } from '../../src/versions/versions.js';
import { kubemix, tempClusterDir } from './helpers.js';

// `kubemix up` with a Windows worker shaped like a Vagrant box: a NAT adapter first (10.0.2.15,
// the default route, unreachable from the other nodes) and the lab network second, whose
// address is the host's inventory address. The simulated node runs containerd 1.7, so its
// HostProcess volumes are read-only bind mounts at their mountPath. The Windows node must
// register and tunnel on the inventory address, and flannel must start.
let lab: MixedClusterLab;
let clusterDir: string;

beforeAll(async () => {
  lab = await startMixedClusterLab({
    controllers: 1,
    linuxWorkers: 1,
    windowsWorkers: 1,
    windowsNics: 'nat-first',
    rebootDownMs: 300,
    scale: 0,
    // A crash-looping flannel never rolls out: fail in seconds rather than after 600 s.
    vars: { windows_networking_timeout: '30s', verify_rollout_timeout: '30s' },
  });
  clusterDir = join(await tempClusterDir(), 'cluster');
});

afterAll(async () => {
  if (lab && (await lab.linux.cluster.cluster()))
    await kubemix(['down', lab.specPath, '--cluster-dir', clusterDir]);
  await lab?.stop();
});

const status = (o: KubeObject) => o['status'] as Record<string, unknown>;

describe('a Windows worker with a NAT adapter before the cluster network', () => {
  it('registers and tunnels on its inventory address, runs flannel and kube-proxy, and verifies', async () => {
    const win = lab.windowsWinrmHosts[0]!;
    const winHost = lab.windows.host(win.name);
    expect(winHost.nics.map((n) => n.address)).toEqual(['10.0.2.15', win.address]);

    const up = await kubemix(['up', lab.specPath, '--cluster-dir', clusterDir]);
    expect(up.stderr).toBe('');
    expect(up.exitCode).toBe(0);

    // The kubelet got the inventory address as node-ip, and the Node carries it.
    const flags = winHost.fs.read('C:\\var\\lib\\kubelet\\kubeadm-flags.env')?.toString('utf8') ?? '';
    expect(flags).toContain(` --node-ip=${win.address}`);
    const node = (await lab.linux.cluster.getObject('Node', undefined, win.name))!;
    expect((status(node)['addresses'] as { type: string; address: string }[])[0]).toEqual({
      type: 'InternalIP',
      address: win.address,
    });

    // flannel's HostProcess pod runs (no copy onto the read-only token mount), bound to NODE_IP.
    const flannel = (await lab.linux.cluster.pods('kube-flannel')).find((p) =>
      p.metadata.name.startsWith('kube-flannel-ds-windows-amd64-'),
    )!;
    expect(status(flannel)['containerStatuses']).toEqual([
      expect.objectContaining({ ready: true, restartCount: 0 }),
    ]);

    // The Windows kube-proxy image follows the cluster's Kubernetes version.
    const proxy = (await lab.linux.cluster.listObjects('DaemonSet', 'kube-system')).find(
      (d) => d.metadata.name === 'kube-proxy-windows',
    )!;
    const image = (proxy['spec'] as { template: { spec: { containers: { image: string }[] } } }).template.spec
      .containers[0]!.image;
    expect(image).toBe(
      `docker.io/sigwindowstools/kube-proxy:v${loadVersions()['kubernetes']}-calico-hostprocess`,
    );

    // The guide's six checks, including pod-to-pod across the overlay and the Windows NodePort.
    const report = JSON.parse(await readFile(join(clusterDir, 'verify.json'), 'utf8')) as {
      checks: { check: string; ok: boolean; detail: string }[];
    };
    expect(report.checks.filter((c) => !c.ok)).toEqual([]);
    expect(report.checks).toHaveLength(6);
  });
});
