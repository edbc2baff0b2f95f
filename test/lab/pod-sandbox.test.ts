import { describe, expect, it } from 'vitest';
import { JoinRefusedError, type KubeObject } from '../../fixtures/lab/cluster-state.js';
import type { SandboxImageError } from '../../fixtures/lab/state/types.js';
import { renderManifestObjects } from '../../src/manifests/index.js';
import { initialisedState, labManifestVars } from './helpers.js';

// A Linux node whose containerd could not have its sandbox image when it joined (the kubeadm
// stand-in records containerd's error on the node, fixtures/lab/state/pod-sandbox.ts): every pod
// sandbox there fails with it, the CNI pods too, so the node never becomes Ready; the image
// arriving in the runtime (the kubelet's image list) ends it.
const MISSING: SandboxImageError = {
  image: 'registry.k8s.io/pause:3.10',
  beforeNetwork: false,
  message:
    'Failed to create pod sandbox: rpc error: code = Unknown desc = failed to pull image "registry.k8s.io/pause:3.10": failed to pull and unpack image "registry.k8s.io/pause:3.10": failed to resolve image: failed to do request: Head "https://registry.k8s.io/v2/pause/manifests/3.10": dial tcp: lookup registry.k8s.io: no such host',
};

const readyOf = (node: KubeObject | undefined) =>
  (
    (node?.['status'] as { conditions?: { type: string; status: string; message: string }[] } | undefined)
      ?.conditions ?? []
  ).find((c) => c.type === 'Ready');

async function clusterWithWorker(options: { sandboxImageError?: SandboxImageError; controlPlane?: boolean }) {
  const { state, init } = await initialisedState();
  for (const o of renderManifestObjects('kube-flannel', labManifestVars())) await state.applyObject(o);
  await state.joinNode({
    name: 'w1',
    os: 'linux',
    token: init.token,
    caCertHash: init.caCertHash,
    address: '10.233.1.3',
    images: [{ ref: 'registry.k8s.io/kube-proxy:v1.31.2' }],
    ...(options.controlPlane ? { controlPlane: true, certificateKey: init.certificateKey } : {}),
    ...(options.sandboxImageError ? { sandboxImageError: options.sandboxImageError } : {}),
  });
  const onW1 = async () =>
    (await state.pods()).filter((p) => (p['spec'] as { nodeName?: string }).nodeName === 'w1');
  return { state, onW1 };
}

describe("a Linux node without containerd's sandbox image", () => {
  it('every pod sandbox there fails with containerd’s error and the node stays NotReady', async () => {
    const { state, onW1 } = await clusterWithWorker({ sandboxImageError: MISSING });
    const pods = await onW1();
    expect(pods.map((p) => p.metadata.name.replace(/-[a-z0-9]{5}$/, '')).sort()).toEqual([
      'kube-flannel-ds',
      'kube-proxy',
    ]);
    const events = await state.events();
    for (const pod of pods) {
      const mine = events.filter((e) => e.object === `pod/${pod.metadata.name}`);
      expect(mine.map((e) => [e.reason, e.message])).toEqual([['FailedCreatePodSandBox', MISSING.message]]);
      expect((pod['status'] as { phase: string }).phase).toBe('Pending');
    }
    expect(readyOf(await state.getObject('Node', undefined, 'w1'))?.message).toContain(
      'cni plugin not initialized',
    );
    // cp1, which has its sandbox image, is unaffected.
    expect(readyOf(await state.getObject('Node', undefined, 'cp1'))?.status).toBe('True');
  });

  it('once the image is in the runtime, the sandboxes start and the node becomes Ready', async () => {
    const { state, onW1 } = await clusterWithWorker({ sandboxImageError: MISSING });
    await state.setNodeImages('w1', [{ ref: 'registry.k8s.io/kube-proxy:v1.31.2' }, { ref: MISSING.image }]);
    // flannel and kube-proxy run; CoreDNS, which waits for a Ready node, is scheduled there too.
    const phases = Object.fromEntries(
      (await onW1()).map((p) => [
        p.metadata.name.split('-').slice(0, -1).join('-'),
        (p['status'] as { phase: string }).phase,
      ]),
    );
    expect(phases).toMatchObject({ 'kube-flannel-ds': 'Running', 'kube-proxy': 'Running' });
    expect((await state.events()).filter((e) => e.reason === 'FailedCreatePodSandBox')).toEqual([]);
    expect(readyOf(await state.getObject('Node', undefined, 'w1'))?.status).toBe('True');
  });

  it('a joining control plane’s etcd cannot start: kubeadm gives up waiting for it', async () => {
    const { state } = await clusterWithWorker({ sandboxImageError: MISSING, controlPlane: true });
    await state.addEtcdMember({ name: 'w1', peerAddress: '10.233.1.3' });
    const error = await state.startEtcdMember('w1').then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(JoinRefusedError);
    expect((error as Error).message).toBe(
      'error execution phase control-plane-join/etcd: error creating local etcd static pod manifest file: timeout waiting for etcd cluster to be available',
    );
  });
});
