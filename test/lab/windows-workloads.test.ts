import { describe, expect, it } from 'vitest';
import type { ClusterState, KubeObject } from '../../fixtures/lab/cluster-state.js';
import { joinWindowsNode } from '../../fixtures/lab/windows-node.js';
import { renderManifestObjects, windowsWorkloads } from '../../src/manifests/index.js';
import { initialisedState, labManifestVars } from './helpers.js';

/**
 * Windows workloads on a lab cluster with a Windows Server 2019 and a 2022 node: RuntimeClass
 * admission, containerd's build matching on pull, the kubelet's image events and a container of
 * the wrong build (fixtures/lab/state/runtime-class.ts and image-compat.ts cite the sources).
 */

const TWO_VERSIONS = { ...labManifestVars(), windows_workloads: windowsWorkloads(['2019', '2022']) };
const LTSC2019 = 'mcr.microsoft.com/windows/servercore:ltsc2019';
const LTSC2022 = 'mcr.microsoft.com/windows/servercore:ltsc2022';

async function applyAll(state: ClusterState, objects: KubeObject[]) {
  for (const o of objects) await state.applyObject(o);
}

type PodStatus = {
  phase: string;
  podIP?: string;
  conditions: { type: string; status: string }[];
  containerStatuses: { state: { waiting?: { reason: string } } }[];
};
const status = (p: KubeObject) => p['status'] as PodStatus;
const nodeOf = (p: KubeObject) => (p['spec'] as { nodeName?: string }).nodeName;
const isReady = (p: KubeObject) => status(p).conditions.find((c) => c.type === 'Ready')?.status === 'True';

/** cp1 + Linux flannel, win2019 (10.0.17763) and win2022 (10.0.20348) joined with the Windows DaemonSets, and the RuntimeClasses. */
async function twoVersionCluster() {
  const { state } = await initialisedState();
  await applyAll(state, renderManifestObjects('kube-flannel', labManifestVars()));
  await joinWindowsNode(state, {
    name: 'win2019',
    address: '10.233.1.11',
    windowsBuild: '10.0.17763',
    manifestVars: labManifestVars(),
  });
  await joinWindowsNode(state, {
    name: 'win2022',
    address: '10.233.1.12',
    windowsBuild: '10.0.20348',
    manifestVars: labManifestVars(),
  });
  await applyAll(state, renderManifestObjects('runtimeclasses', TWO_VERSIONS));
  const pods = async () =>
    (await state.pods('default')).filter((p) => p.metadata.name.startsWith('win-webserver-'));
  const eventsOf = async (pod: KubeObject) =>
    (await state.events('default')).filter((e) => e.object === `pod/${pod.metadata.name}`);
  return { state, pods, eventsOf };
}

/** win-webserver as kubemix shipped it before: one Deployment, the first Windows worker's Server Core, no RuntimeClass. */
const singleVersionDeployment = (image: string): KubeObject => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'win-webserver', namespace: 'default' },
  spec: {
    replicas: 2,
    selector: { matchLabels: { app: 'win-webserver' } },
    template: {
      metadata: { labels: { app: 'win-webserver' } },
      spec: {
        nodeSelector: { 'kubernetes.io/os': 'windows' },
        containers: [{ name: 'windowswebserver', image, ports: [{ containerPort: 80 }] }],
      },
    },
  },
});

describe('Windows workloads on a cluster with Windows Server 2019 and 2022 nodes', () => {
  it('one Deployment with one Server Core image for both: the pod on the other build cannot pull it', async () => {
    const { state, pods, eventsOf } = await twoVersionCluster();
    await applyAll(state, [singleVersionDeployment(LTSC2019)]);
    const all = await pods();
    expect(all.map((p) => [nodeOf(p), status(p).phase, isReady(p)])).toEqual([
      ['win2019', 'Running', true],
      ['win2022', 'Pending', false],
    ]);
    const stuck = all[1]!;
    expect(status(stuck).containerStatuses[0]!.state.waiting?.reason).toBe('ImagePullBackOff');
    const failed = (await eventsOf(stuck)).filter((e) => e.reason === 'Failed').map((e) => e.message);
    expect(failed[0]).toMatch(
      /^Failed to pull image "mcr\.microsoft\.com\/windows\/servercore:ltsc2019": rpc error: code = NotFound desc = get image config descriptor: no match for platform in manifest sha256:[0-9a-f]{64}: not found$/,
    );
  });

  it("kubemix's manifests: each version's pods land on its build, pull its image and serve", async () => {
    const { state, pods, eventsOf } = await twoVersionCluster();
    await applyAll(state, renderManifestObjects('win-webserver', TWO_VERSIONS));
    const all = await pods();
    expect(all.map((p) => [p.metadata.name.split('-').slice(0, 3).join('-'), nodeOf(p), isReady(p)])).toEqual(
      [
        ['win-webserver-2019', 'win2019', true],
        ['win-webserver-2019', 'win2019', true],
        ['win-webserver-2022', 'win2022', true],
        ['win-webserver-2022', 'win2022', true],
      ],
    );
    // The RuntimeClass admission put its build selector and toleration on the pods.
    expect((all[0]!['spec'] as { nodeSelector: Record<string, string> }).nodeSelector).toMatchObject({
      'node.kubernetes.io/windows-build': '10.0.17763',
    });
    // Nothing pre-pulled: the kubelet pulls each image.
    expect((await eventsOf(all[2]!)).map((e) => [e.reason, e.message.split(' in ')[0]])).toEqual([
      ['Pulling', `Pulling image "${LTSC2022}"`],
      ['Pulled', `Successfully pulled image "${LTSC2022}"`],
    ]);
    // The Service selects the pods of both versions.
    const endpoints = await state.getObject('Endpoints', 'default', 'win-webserver');
    const addresses = (endpoints!['subsets'] as { addresses: { ip: string }[] }[])[0]!.addresses;
    expect(addresses.map((a) => a.ip).sort()).toEqual(all.map((p) => status(p).podIP).sort());
  });

  it('an image already in the node runtime is reported as already present, and the Node status lists it', async () => {
    const { state, pods, eventsOf } = await twoVersionCluster();
    await state.setNodeImages('win2019', [{ ref: LTSC2019, build: '10.0.17763' }]);
    await applyAll(state, renderManifestObjects('win-webserver', TWO_VERSIONS));
    const pod = (await pods()).find((p) => nodeOf(p) === 'win2019')!;
    expect(await eventsOf(pod)).toEqual([
      {
        namespace: 'default',
        object: `pod/${pod.metadata.name}`,
        type: 'Normal',
        reason: 'Pulled',
        message: `Container image "${LTSC2019}" already present on machine`,
      },
    ]);
    const node = await state.getObject('Node', undefined, 'win2019');
    expect((node!['status'] as { images?: unknown }).images).toEqual([{ names: [LTSC2019] }]);
  });

  it('a process-isolated container of another build does not start: CrashLoopBackOff, not Ready, no endpoint', async () => {
    const { state, pods, eventsOf } = await twoVersionCluster();
    // Unpacked with `ctr --platform windows/amd64`, which matches any build.
    await state.setNodeImages('win2019', [{ ref: LTSC2022, build: '10.0.20348' }]);
    const pinned = singleVersionDeployment(LTSC2022);
    (
      pinned['spec'] as { template: { spec: { nodeSelector: Record<string, string> } } }
    ).template.spec.nodeSelector['kubernetes.io/hostname'] = 'win2019';
    await applyAll(state, [
      pinned,
      ...renderManifestObjects('win-webserver', TWO_VERSIONS).filter((o) => o.kind === 'Service'),
    ]);
    const [pod] = await pods();
    expect([
      status(pod!).phase,
      isReady(pod!),
      status(pod!).containerStatuses[0]!.state.waiting?.reason,
    ]).toEqual(['Running', false, 'CrashLoopBackOff']);
    const failed = (await eventsOf(pod!)).find((e) => e.reason === 'Failed');
    expect(failed?.message).toMatch(
      /The container operating system does not match the host operating system\.: unknown$/,
    );
    const endpoints = await state.getObject('Endpoints', 'default', 'win-webserver');
    expect(endpoints!['subsets'] ?? []).toEqual([]);
    const answer = await state.reach({ from: { node: 'cp1' }, url: `http://${status(pod!).podIP}/` });
    expect(answer).toMatchObject({ ok: false, kind: 'refused' });
  });

  it('a RuntimeClass whose handler containerd does not have: no sandbox, Pending without an address, in containerd words', async () => {
    const { state, pods, eventsOf } = await twoVersionCluster();
    const typo = renderManifestObjects('runtimeclasses', TWO_VERSIONS).map((rc) =>
      rc.metadata.name === 'windows-2019' ? { ...rc, handler: 'runhcs-wcow-proces' } : rc,
    );
    await applyAll(state, typo);
    await applyAll(state, renderManifestObjects('win-webserver', TWO_VERSIONS));
    const all = await pods();
    const on2019 = all.filter((p) => nodeOf(p) === 'win2019');
    expect(on2019).toHaveLength(2);
    for (const pod of on2019) {
      expect([
        status(pod).phase,
        status(pod).podIP,
        status(pod).containerStatuses[0]!.state.waiting?.reason,
      ]).toEqual(['Pending', undefined, 'ContainerCreating']);
      expect((await eventsOf(pod)).map((e) => `${e.reason}: ${e.message}`)).toEqual([
        expect.stringMatching(
          /^FailedCreatePodSandBox: Failed to create pod sandbox: rpc error: code = Unknown desc = unable to get OCI runtime for sandbox "[0-9a-f]{64}": no runtime for "runhcs-wcow-proces" is configured$/,
        ),
      ]);
    }
    // The other version's RuntimeClass names containerd's default handler: its pods run.
    expect(all.filter((p) => nodeOf(p) === 'win2022').map(isReady)).toEqual([true, true]);
  });
});
