import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtRelease } from '../../fixtures/release/built-release.js';
import {
  type LocalControlPlane,
  startLocalControlPlane,
} from '../../fixtures/release/local-control-plane.js';
import { pollUntil } from '../../scripts/lab/poll.js';
import { MANIFEST_NAMES, renderManifest } from '../../src/manifests/index.js';
import { type NodeSpec, registerNode } from '../helpers/real-nodes.js';
import { testTempDir } from '../helpers/temp.js';
import { TWO_VERSION_VARS } from '../manifests/manifest-vars.js';

// Issue 24 item 3, on real processes: where kubemix's manifests put pods is decided by the real
// scheduler, the real DaemonSet and Deployment controllers and the real RuntimeClass admission of
// the pinned release (fixtures/release/local-control-plane.ts), not by the lab's model of them. The
// Nodes are what kubeadm and the kubelets of a mixed cluster register (labels a Windows kubelet
// sets, kubeadm's control-plane taint, kubemix's opt-in os=windows:NoSchedule taint); nothing runs
// the pods, so the question is only where they are bound. Two Windows builds (2019 and 2022), so a
// pod on the wrong build would show.

// The builds real Windows kubelets report, written here rather than read from src/manifests: a
// wrong build there then shows as unschedulable pods instead of agreeing with itself.
const BUILD = { '2019': '10.0.17763', '2022': '10.0.20348' } as const;

const NODES: NodeSpec[] = [
  { name: 'controller-01', os: 'linux', controlPlane: true },
  { name: 'linux-01', os: 'linux' },
  { name: 'windows-2019', os: 'windows', build: BUILD['2019'] },
  { name: 'windows-2022', os: 'windows', build: BUILD['2022'] },
];

let cp: LocalControlPlane;

interface PodObject {
  metadata: { name: string; namespace: string; ownerReferences?: Array<{ kind: string; name: string }> };
  spec: { nodeName?: string };
  status: { conditions?: Array<{ type: string; status: string; reason?: string; message?: string }> };
}

const unschedulable = (pod: PodObject) =>
  pod.status.conditions?.find((c) => c.type === 'PodScheduled' && c.reason === 'Unschedulable');

/** The pods once every one is bound or found unschedulable by the scheduler (bounded: 60 s). */
async function settledPods(expected: number): Promise<PodObject[]> {
  let pods: PodObject[] = [];
  // A poll of the API: the controllers and the scheduler work on their own time.
  await pollUntil(
    async () => {
      pods = JSON.parse(await cp.kubectlOk(['get', 'pods', '-A', '-o', 'json'])).items as PodObject[];
      return pods.length >= expected && pods.every((pod) => pod.spec.nodeName || unschedulable(pod));
    },
    { timeoutMs: 60_000, intervalMs: 500 },
  );
  return pods;
}

/** `owner name -> sorted node names` for the bound pods; a Deployment's pods under its ReplicaSet's name. */
function placement(pods: PodObject[]): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const pod of pods) {
    const owner = pod.metadata.ownerReferences?.[0]?.name ?? pod.metadata.name;
    const name = owner.replace(/-[a-z0-9]{8,10}$/, '');
    out[name] = [...(out[name] ?? []), pod.spec.nodeName ?? 'UNSCHEDULABLE'];
  }
  for (const nodes of Object.values(out)) nodes.sort();
  return out;
}

beforeAll(async () => {
  cp = await startLocalControlPlane(builtRelease(), join(await testTempDir('scheduler'), 'control-plane'), {
    scheduling: true,
  });
  // kubeadm's kube-proxy add-on makes this ServiceAccount; the Windows kube-proxy DaemonSet runs as it.
  await cp.kubectlOk(['create', 'serviceaccount', 'kube-proxy', '-n', 'kube-system']);
  for (const node of NODES) await registerNode(cp, node);
}, 120_000);

afterAll(async () => {
  await cp?.stop();
});

describe("the real scheduler and controllers place kubemix's workloads on a mixed cluster", () => {
  it('binds each DaemonSet to its OS, each Windows version to its build, the Linux workloads to Linux', async () => {
    // MANIFEST_NAMES is in the order the playbooks apply them: the RuntimeClasses before the
    // Deployments whose pods name them (RuntimeClass admission looks them up).
    for (const name of MANIFEST_NAMES)
      await cp.kubectlOk(['apply', '-f', '-'], renderManifest(name, TWO_VERSION_VARS));
    // 2 Linux flannel, 2 Windows flannel, 2 Windows kube-proxy, 2 x 2 win-webserver, 2 Linux
    // netexec and its client.
    const pods = await settledPods(13);
    expect(pods.filter(unschedulable).map((p) => `${p.metadata.name}: ${unschedulable(p)?.message}`)).toEqual(
      [],
    );
    expect(placement(pods)).toEqual({
      'kube-flannel-ds': ['controller-01', 'linux-01'],
      'kube-flannel-ds-windows-amd64': ['windows-2019', 'windows-2022'],
      'kube-proxy-windows': ['windows-2019', 'windows-2022'],
      'win-webserver-2019': ['windows-2019', 'windows-2019'],
      'win-webserver-2022': ['windows-2022', 'windows-2022'],
      'linux-netexec': ['controller-01', 'linux-01'],
      'linux-netexec-client': [expect.stringMatching(/^(controller-01|linux-01)$/)],
    });
  });

  it('leaves a Windows version unschedulable when its RuntimeClass names a build no node has', async () => {
    // No garbage collector and no kubelet here: the ReplicaSets go with their Deployments by
    // hand, and their bound pods are force-deleted (no kubelet would confirm a graceful delete).
    await cp.kubectlOk(['delete', 'deployment,replicaset', '-l', 'app=win-webserver']);
    await cp.kubectlOk(['delete', 'pods', '-l', 'app=win-webserver', '--force', '--grace-period=0']);
    await cp.kubectlOk(['delete', 'runtimeclass', 'windows-2019']);
    const misSet = renderManifest('runtimeclasses', TWO_VERSION_VARS).replace(
      `"${BUILD['2019']}"`,
      '"10.0.17764"',
    );
    await cp.kubectlOk(['apply', '-f', '-'], misSet);
    await cp.kubectlOk(['apply', '-f', '-'], renderManifest('win-webserver', TWO_VERSION_VARS));
    const pods = (await settledPods(13)).filter((p) => p.metadata.name.startsWith('win-webserver-2019'));
    expect(pods).toHaveLength(2);
    for (const pod of pods) {
      expect(pod.spec.nodeName).toBeUndefined();
      expect(unschedulable(pod)?.message).toMatch(/didn't match Pod's node affinity\/selector/);
    }
  });

  it('makes no Windows kube-proxy pods when the DaemonSet does not tolerate the os=windows taint', async () => {
    const untolerated = renderManifest('kube-proxy-windows', TWO_VERSION_VARS).replace(
      /\n {8}- operator: Exists\n/,
      '\n',
    );
    expect(untolerated).not.toBe(renderManifest('kube-proxy-windows', TWO_VERSION_VARS));
    await cp.kubectlOk(['apply', '-f', '-'], untolerated);
    // The DaemonSet controller only makes pods for nodes whose NoSchedule taints the pod tolerates.
    const settled = await pollUntil(
      async () => {
        const ds = JSON.parse(
          await cp.kubectlOk(['get', 'daemonset', 'kube-proxy-windows', '-n', 'kube-system', '-o', 'json']),
        );
        return (
          ds.status.observedGeneration === ds.metadata.generation && ds.status.desiredNumberScheduled === 0
        );
      },
      { timeoutMs: 60_000, intervalMs: 500 },
    );
    expect(settled).toBe(true);
  });
});
