import { rm } from 'node:fs/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { ClusterState, JoinRefusedError, type KubeObject } from '../../fixtures/lab/cluster-state.js';
import type { NodeNetwork } from '../../fixtures/lab/state/node-network.js';
import { renderManifestObjects } from '../../src/manifests/index.js';
import { loadVersions } from '../../src/versions/versions.js';
import { testTempDir } from '../helpers/temp.js';
import { labManifestVars } from './helpers.js';

// The lab's stacked etcd and multi-NIC model, through the ClusterState API the stand-ins use.

const NAT = '10.0.2.15';
/** A lab host with a NAT-like first NIC (as lab.sh --nat-nic makes them) and a cluster NIC. */
const natHost = (address: string, defaultRoute = NAT): NodeNetwork => ({
  interfaces: [
    { name: 'eth0', address: NAT, prefix: 24 },
    { name: 'eth1', address, prefix: 24 },
  ],
  defaultRouteAddress: defaultRoute,
});

const dirs: string[] = [];
afterEach(async () => {
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

/** A cluster whose first control plane cp1 (10.9.0.1) advertises `advertise`. */
async function cluster(advertise = '10.9.0.1', address = '10.9.0.1') {
  const dir = await testTempDir('lab-state');
  dirs.push(dir);
  const state = ClusterState.open(dir);
  const init = await state.initCluster({
    controlPlaneEndpoint: '10.9.0.1:6443',
    podCIDR: '10.244.0.0/16',
    serviceCIDR: '10.96.0.0/12',
    kubernetesVersion: '1.31.2',
    firstNode: { name: 'cp1', address, apiServerAddress: advertise, network: natHost('10.9.0.1') },
  });
  const join = (name: string, address: string, extra: { controlPlane?: boolean; advertise?: string } = {}) =>
    state.joinNode({
      name,
      os: 'linux',
      token: init.token,
      caCertHash: init.caCertHash,
      address,
      network: natHost(address),
      ...(extra.controlPlane
        ? {
            controlPlane: true,
            certificateKey: init.certificateKey,
            apiServerAddress: extra.advertise ?? address,
          }
        : {}),
    });
  return { state, join };
}

async function refusal(promise: Promise<unknown>): Promise<string> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(JoinRefusedError);
  return (error as Error).message;
}

describe('stacked etcd of joining control planes', () => {
  it('refuses a member add while the last added member has not started (kubeadm#2005), then accepts it', async () => {
    const { state, join } = await cluster();
    await join('cp2', '10.9.0.2', { controlPlane: true });
    await state.addEtcdMember({ name: 'cp2', peerAddress: '10.9.0.2' });
    await join('cp3', '10.9.0.3', { controlPlane: true });
    expect(await refusal(state.addEtcdMember({ name: 'cp3', peerAddress: '10.9.0.3' }))).toBe(
      'error execution phase control-plane-join/etcd: error creating local etcd static pod manifest file: etcdserver: re-configuration failed due to not enough started members',
    );
    await state.startEtcdMember('cp2');
    await state.addEtcdMember({ name: 'cp3', peerAddress: '10.9.0.3' });
    await state.startEtcdMember('cp3');
    expect((await state.read()).etcd?.map((m) => [m.name, m.started])).toEqual([
      ['cp1', true],
      ['cp2', true],
      ['cp3', true],
    ]);
    // kubeadm reset on a control plane removes its member.
    await state.reset('cp3');
    expect((await state.read()).etcd?.map((m) => m.name)).toEqual(['cp1', 'cp2']);
  });

  it('fails check-etcd when the first control plane advertised the NAT address every host shares', async () => {
    const { state, join } = await cluster(NAT);
    expect(await refusal(join('cp2', '10.9.0.2', { controlPlane: true }))).toBe(
      'error execution phase check-etcd: error syncing endpoints with etcd: context deadline exceeded',
    );
    // The refused join registered nothing.
    expect((await state.nodes()).map((n) => n.metadata.name)).toEqual(['cp1']);
  });

  it('never starts a new member that advertises the NAT address', async () => {
    const { state, join } = await cluster();
    await join('cp2', '10.9.0.2', { controlPlane: true, advertise: NAT });
    await state.addEtcdMember({ name: 'cp2', peerAddress: NAT });
    expect(await refusal(state.startEtcdMember('cp2'))).toBe(
      'error execution phase control-plane-join/etcd: error creating local etcd static pod manifest file: timeout waiting for etcd cluster to be available',
    );
    expect((await state.read()).etcd?.find((m) => m.name === 'cp2')?.started).toBe(false);
  });
});

describe('flannel on hosts whose default route is a NAT interface', () => {
  const flannelWith = async (state: ClusterState, args: string[] | undefined) => {
    for (const obj of renderManifestObjects('kube-flannel', labManifestVars())) {
      if (obj.kind === 'DaemonSet' && args) {
        const container = (obj['spec'] as { template: { spec: { containers: { args: string[] }[] } } })
          .template.spec.containers[0]!;
        container.args = args;
      }
      await state.applyObject(obj);
    }
  };
  const workloads = async (state: ClusterState) => {
    await state.applyObject({
      apiVersion: 'apps/v1',
      kind: 'DaemonSet',
      metadata: { name: 'probe', namespace: 'default' },
      spec: {
        selector: { matchLabels: { app: 'probe' } },
        template: {
          metadata: { labels: { app: 'probe' } },
          spec: {
            tolerations: [{ operator: 'Exists' }],
            // agnhost netexec listening on port 80 (the lab models it; a pause container serves nothing).
            containers: [
              {
                name: 'web',
                image: loadVersions()['agnhost'],
                args: ['netexec', '--http-port=80'],
                ports: [{ containerPort: 80 }],
              },
            ],
          },
        },
      },
    } as KubeObject);
    const pods = await state.pods('default');
    const on = (node: string) =>
      (
        pods.find((p) => (p['spec'] as { nodeName: string }).nodeName === node)!['status'] as {
          podIP: string;
        }
      ).podIP;
    return state.reach({ from: { node: 'cp1' }, url: `http://${on('w1')}/hostname` });
  };

  it('tunnels between nodes when flanneld uses the node IP (--iface=$(NODE_IP)), as the template says', async () => {
    const { state, join } = await cluster();
    await join('w1', '10.9.0.2');
    await flannelWith(state, undefined);
    expect(await workloads(state)).toMatchObject({ ok: true });
  });

  it('drops traffic when flanneld takes the default-route interface (no --iface)', async () => {
    const { state, join } = await cluster();
    await join('w1', '10.9.0.2');
    await flannelWith(state, ['--ip-masq', '--kube-subnet-mgr']);
    const result = await workloads(state);
    expect(result.ok).toBe(false);
    expect(result.ok === false && result.reason).toContain(
      "flannel's VXLAN endpoints are cp1 10.0.2.15 and w1 10.0.2.15",
    );
  });

  it('drops traffic when a node registered the NAT address as its InternalIP, even with --iface=$(NODE_IP)', async () => {
    const { state, join } = await cluster();
    await join('w1', NAT);
    await flannelWith(state, undefined);
    expect((await workloads(state)).ok).toBe(false);
  });

  it('crash-loops flanneld on nodes that cannot reach the API server the kubernetes Service points to', async () => {
    const { state, join } = await cluster(NAT, '10.9.0.1');
    await join('w1', '10.9.0.2');
    await flannelWith(state, undefined);
    const flannel = (await state.pods('kube-flannel')).map((p) => [
      (p['spec'] as { nodeName: string }).nodeName,
      (p['status'] as { containerStatuses: { state: { waiting?: { reason: string } } }[] })
        .containerStatuses[0]!.state.waiting?.reason ?? 'running',
    ]);
    expect(flannel).toEqual([
      ['cp1', 'running'],
      ['w1', 'CrashLoopBackOff'],
    ]);
    const events = (await state.events('kube-flannel')).filter((e) => e.reason === 'BackOff');
    expect(events.map((e) => e.message).join('\n')).toContain(
      'Failed to create SubnetManager: error retrieving pod spec for',
    );
  });
});
