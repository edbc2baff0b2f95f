import { describe, expect, it } from 'vitest';
import { ClusterState, type KubeObject } from '../../fixtures/lab/cluster-state.js';
import { renderManifestObjects } from '../../src/manifests/index.js';
import { testTempDir } from '../helpers/temp.js';
import { labManifestVars } from './helpers.js';

// Issue 9 item 7: a Linux node's readiness and pod network come from what flannel's pods do there
// (fixtures/lab/state/linux-flannel.ts, flannel-lease.ts), not from a DaemonSet's name, and
// flanneld's lease follows the cluster's pod subnet as kubeadm and flannel's kube subnet manager do.

const ready = (node: KubeObject | undefined) =>
  ((node?.['status'] as { conditions?: { type: string; status: string }[] })?.conditions ?? []).find(
    (c) => c.type === 'Ready',
  )?.status;

/** A cluster whose kubeadm got `podCIDR` ('' = none), with cp1 and the Linux worker w1. */
async function cluster(podCIDR = '10.244.0.0/16') {
  const state = ClusterState.open(await testTempDir('lab-state'));
  const init = await state.initCluster({
    controlPlaneEndpoint: '10.233.1.2:6443',
    podCIDR,
    serviceCIDR: '10.96.0.0/12',
    kubernetesVersion: '1.31.2',
    firstNode: { name: 'cp1', address: '10.233.1.2' },
  });
  await state.joinNode({ name: 'w1', os: 'linux', token: init.token, caCertHash: init.caCertHash });
  return { state, init };
}

/** kubemix's flannel manifest for the lab, changed by `edit` (on the DaemonSet and ConfigMap). */
function flannel(
  edit: (parts: { ds: KubeObject; cm: KubeObject; container: Record<string, unknown> }) => void = () => {},
  vars = labManifestVars(),
): KubeObject[] {
  const objects = structuredClone(renderManifestObjects('kube-flannel', vars)) as KubeObject[];
  const ds = objects.find((o) => o.kind === 'DaemonSet')!;
  const cm = objects.find((o) => o.kind === 'ConfigMap')!;
  const container = (ds['spec'] as { template: { spec: { containers: Record<string, unknown>[] } } }).template
    .spec.containers[0]!;
  edit({ ds, cm, container });
  return objects;
}

/** A one-replica Deployment on the pod network (what the workloads need). */
const web: KubeObject = {
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'web', namespace: 'default' },
  spec: {
    replicas: 1,
    selector: { matchLabels: { app: 'web' } },
    template: {
      metadata: { labels: { app: 'web' } },
      spec: {
        nodeSelector: { 'kubernetes.io/hostname': 'w1' },
        containers: [{ name: 'web', image: 'nginx' }],
      },
    },
  },
};

async function applyAll(state: ClusterState, objects: KubeObject[]) {
  for (const o of objects) await state.applyObject(o);
}

/** What the lab says of the pods: flannel's pod on w1 and web's pod, with their events. */
async function outcome(state: ClusterState) {
  const pods = await state.pods();
  const events = await state.events();
  const about = (prefix: string) => {
    const pod = pods.find(
      (p) =>
        p.metadata.name.startsWith(prefix) &&
        p['spec'] &&
        (p['spec'] as { nodeName?: string }).nodeName === 'w1',
    );
    const status = pod?.['status'] as {
      phase?: string;
      containerStatuses?: { state?: { waiting?: { reason?: string } } }[];
    };
    return {
      phase: status?.phase,
      waiting: status?.containerStatuses?.[0]?.state?.waiting?.reason,
      events: events
        .filter((e) => e.object === `pod/${pod?.metadata.name}`)
        .map((e) => `${e.reason}: ${e.message}`),
    };
  };
  return { flannel: about('kube-flannel-ds-'), web: about('web-') };
}

describe('the pod subnet: kubeadm invents none, flanneld needs its node CIDR inside Network', () => {
  it('without a pod subnet nodes get no podCIDR, flanneld dies without a lease and pods get no network', async () => {
    const { state } = await cluster('');
    await applyAll(state, [...flannel(), web]);
    const w1 = await state.getObject('Node', undefined, 'w1');
    expect(w1).toBeDefined();
    expect((w1!['spec'] as { podCIDR?: string }).podCIDR).toBeUndefined();
    // install-cni ran: the node is Ready even though flanneld crash-loops (as on a real node).
    expect(ready(w1)).toBe('True');
    const { flannel: f, web: w } = await outcome(state);
    expect(f.waiting).toBe('CrashLoopBackOff');
    expect(f.events.join('\n')).toContain(
      'E main.go] Error registering network: failed to acquire lease: node "w1" pod cidr not assigned',
    );
    expect(w.phase).toBe('Pending');
    expect(w.events.join('\n')).toContain(
      'loadFlannelSubnetEnv failed: open /run/flannel/subnet.env: no such file or directory',
    );
  });

  it("a flannel Network that does not hold the cluster's pod subnet is refused by flanneld", async () => {
    const { state } = await cluster('10.245.0.0/16');
    await applyAll(state, [...flannel(), web]);
    const { flannel: f, web: w } = await outcome(state);
    expect(f.events.join('\n')).toContain(
      'Error registering network: failed to acquire lease: subnet "10.244.0.0/16" specified in the flannel net config doesn\'t contain "10.245.1.0/24" PodCIDR of the "w1" node',
    );
    expect(w.phase).toBe('Pending');
  });

  it('the same Network as the pod subnet (and a wider one) gives every node its lease', async () => {
    const { state } = await cluster('10.244.0.0/16');
    await applyAll(state, [
      ...flannel(({ cm }) => {
        const data = cm['data'] as Record<string, string>;
        data['net-conf.json'] = data['net-conf.json']!.replace('10.244.0.0/16', '10.0.0.0/8');
      }),
      web,
    ]);
    const { flannel: f, web: w } = await outcome(state);
    expect(f).toMatchObject({ phase: 'Running', waiting: undefined, events: [] });
    expect(w.phase).toBe('Running');
  });
});

describe('Linux readiness comes from a flannel pod that actually works there', () => {
  it('a DaemonSet merely named like flannel makes no node Ready', async () => {
    const { state } = await cluster();
    await applyAll(state, [
      { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'kube-flannel' } },
      {
        apiVersion: 'apps/v1',
        kind: 'DaemonSet',
        metadata: { name: 'kube-flannel-ds', namespace: 'kube-flannel', labels: { app: 'flannel' } },
        spec: {
          selector: { matchLabels: { app: 'flannel' } },
          template: {
            metadata: { labels: { app: 'flannel' } },
            spec: {
              hostNetwork: true,
              tolerations: [{ operator: 'Exists', effect: 'NoSchedule' }],
              containers: [{ name: 'kube-flannel', image: 'busybox', command: ['sleep', 'infinity'] }],
            },
          },
        },
      },
    ]);
    expect((await state.nodes()).map((n) => ready(n))).toEqual(['False', 'False']);
  });

  it('the ConfigMap missing: the pod never starts (FailedMount) and the node stays NotReady', async () => {
    const { state } = await cluster();
    await applyAll(
      state,
      flannel().filter((o) => o.kind !== 'ConfigMap'),
    );
    expect(ready(await state.getObject('Node', undefined, 'w1'))).toBe('False');
    expect((await outcome(state)).flannel.events).toEqual([
      'FailedMount: MountVolume.SetUp failed for volume "flannel-cfg" : configmap "kube-flannel-cfg" not found',
    ]);
  });

  it("a ConfigMap without cni-conf.json: install-cni's install-conf fails and the node stays NotReady", async () => {
    const { state } = await cluster();
    await applyAll(
      state,
      flannel(({ cm }) => {
        delete (cm['data'] as Record<string, string>)['cni-conf.json'];
      }),
    );
    expect(ready(await state.getObject('Node', undefined, 'w1'))).toBe('False');
    expect((await outcome(state)).flannel.events.join('\n')).toContain(
      'error installing "/etc/kube-flannel/cni-conf.json": cannot open file "/etc/kube-flannel/cni-conf.json": open /etc/kube-flannel/cni-conf.json: no such file or directory',
    );
  });

  it('flanneld without --kube-subnet-mgr waits for etcd forever: the node is Ready, pods get no network', async () => {
    const { state } = await cluster();
    await applyAll(state, [
      ...flannel(({ container }) => {
        container['args'] = ['--ip-masq', '--iface=$(NODE_IP)'];
      }),
      web,
    ]);
    expect(ready(await state.getObject('Node', undefined, 'w1'))).toBe('True');
    const { flannel: f, web: w } = await outcome(state);
    expect(f.phase).toBe('Running');
    expect(w.events.join('\n')).toContain('loadFlannelSubnetEnv failed');
  });

  it('flanneld from an image that is not flannel cannot start', async () => {
    const { state } = await cluster();
    await applyAll(state, [
      ...flannel(({ container }) => {
        container['image'] = 'docker.io/library/busybox:1.36';
      }),
      web,
    ]);
    const { flannel: f, web: w } = await outcome(state);
    expect(f.waiting).toBe('CrashLoopBackOff');
    expect(f.events.join('\n')).toContain(
      'exec: "/opt/bin/flanneld": stat /opt/bin/flanneld: no such file or directory',
    );
    expect(w.phase).toBe('Pending');
  });

  it("kubemix's flannel manifest, renamed, still makes the nodes Ready and gives pods their network", async () => {
    const { state } = await cluster();
    await applyAll(state, [
      ...flannel(({ ds }) => {
        ds.metadata.name = 'overlay';
      }),
      web,
    ]);
    expect((await state.nodes()).map((n) => ready(n))).toEqual(['True', 'True']);
    expect((await outcome(state)).web.phase).toBe('Running');
  });
});

describe("Windows flanneld's lease", () => {
  it("a Windows net-conf Network that does not hold the node's pod CIDR: no HNS network, Windows pods never start", async () => {
    const { state, init } = await cluster('10.245.0.0/16');
    const linuxVars = { ...labManifestVars(), pod_cidr: '10.245.0.0/16' };
    await applyAll(state, renderManifestObjects('kube-flannel', linuxVars));
    await state.joinNode({
      name: 'win1',
      os: 'windows',
      address: '10.233.1.200',
      containerRuntimeVersion: 'containerd://1.7.22',
      token: init.token,
      caCertHash: init.caCertHash,
    });
    // The Windows side rendered for the default 10.244.0.0/16.
    for (const name of [
      'kube-flannel-windows',
      'kube-proxy-windows',
      'runtimeclasses',
      'win-webserver',
    ] as const)
      await applyAll(state, renderManifestObjects(name, labManifestVars()));
    const web = (await state.pods('default')).filter((p) => p.metadata.name.startsWith('win-webserver-'));
    expect(web.map((p) => (p['status'] as { phase: string }).phase)).toEqual(['Pending', 'Pending']);
    const sandbox = (await state.events('default')).find((e) => e.reason === 'FailedCreatePodSandBox');
    expect(sandbox?.message).toContain(
      'Network flannel.4096 not found (kubemix lab: flanneld does not run on win1: E main.go] Error registering network: failed to acquire lease: subnet "10.244.0.0/16" specified in the flannel net config doesn\'t contain "10.245.2.0/24" PodCIDR of the "win1" node)',
    );
  });
});
