import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NodeImage } from '../../fixtures/lab/state/image-compat.js';
import { builtRelease } from '../../fixtures/release/built-release.js';
import {
  type LocalControlPlane,
  startLocalControlPlane,
} from '../../fixtures/release/local-control-plane.js';
import {
  type RealJoinResult,
  realKubeadmJoin,
} from '../../fixtures/windows-sim/real-join/real-kubeadm-join.js';
import { pollUntil } from '../../scripts/lab/poll.js';
import { testTempDir } from '../helpers/temp.js';

// Issue 24 item 2: the pods the REAL scheduler binds to a simulated Windows node are judged by the
// simulator's container model (fixtures/windows-sim/real-join/sim-pod-outcome.ts): a RuntimeClass
// handler containerd does not have, an image of a Windows build the node cannot pull, an image
// in the node's store unpacked for another build, and a HostProcess pod, which runs on any build.
// What the kubelet reports (status and events) then goes through the real API server, and the real
// EndpointSlice controller builds the Service from it.

const release = builtRelease();
let cp: LocalControlPlane;
let joined: RealJoinResult;

// The node's containerd store: Server Core ltsc2019, imported for any platform (`ctr images import
// --platform windows/amd64`), so its 2019 build sits on this 2022 node.
const STORE: NodeImage[] = [{ ref: 'mcr.microsoft.com/windows/servercore:ltsc2019', build: '10.0.17763' }];

/** A pod for the Windows node, placed by the real scheduler (nodeSelector and the os taint's toleration). */
function windowsPod(name: string, image: string, extra: Record<string, unknown> = {}) {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: 'default', labels: { app: 'judged' } },
    spec: {
      nodeSelector: { 'kubernetes.io/os': 'windows' },
      tolerations: [{ key: 'os', operator: 'Equal', value: 'windows', effect: 'NoSchedule' }],
      containers: [{ name: 'main', image }],
      ...extra,
    },
  };
}

const PODS = [
  windowsPod('matching', 'mcr.microsoft.com/windows/servercore:ltsc2022'),
  windowsPod('newer-build', 'mcr.microsoft.com/windows/servercore:ltsc2025'),
  windowsPod('stored-other-build', 'mcr.microsoft.com/windows/servercore:ltsc2019'),
  windowsPod('handler-typo', 'mcr.microsoft.com/windows/servercore:ltsc2022', {
    runtimeClassName: 'windows-typo',
  }),
  windowsPod('hostprocess', 'mcr.microsoft.com/windows/servercore:ltsc2019', {
    hostNetwork: true,
    securityContext: { windowsOptions: { hostProcess: true, runAsUserName: 'NT AUTHORITY\\SYSTEM' } },
  }),
];

const TYPO_RUNTIME_CLASS = {
  apiVersion: 'node.k8s.io/v1',
  kind: 'RuntimeClass',
  metadata: { name: 'windows-typo' },
  handler: 'runhcs-wcow-proces',
};

interface PodObject {
  metadata: { name: string };
  spec: { nodeName?: string };
  status: {
    phase?: string;
    podIP?: string;
    conditions?: Array<{ type: string; status: string; reason?: string; message?: string }>;
    containerStatuses?: Array<{
      ready: boolean;
      state: Record<string, { reason?: string; message?: string }>;
      lastState?: { terminated?: { reason: string; exitCode: number; message: string } };
    }>;
  };
}

const json = async (args: string[]) => JSON.parse(await cp.kubectlOk([...args, '-o', 'json']));
const condition = (pod: PodObject, type: string) => pod.status.conditions?.find((c) => c.type === type);

/** The pods once the simulated kubelet has reported each (bounded: 60 s). */
async function reportedPods(): Promise<Record<string, PodObject>> {
  let pods: PodObject[] = [];
  // A poll of the API: the scheduler and the simulated kubelet work on their own time.
  await pollUntil(
    async () => {
      pods = (await json(['get', 'pods', '-l', 'app=judged'])).items;
      return pods.length === PODS.length && pods.every((p) => p.status.containerStatuses !== undefined);
    },
    { timeoutMs: 60_000, intervalMs: 500 },
  );
  return Object.fromEntries(pods.map((p) => [p.metadata.name, p]));
}

/** `reason: message` of the kubelet's events about a pod, sorted (they are written in the same second). */
async function kubeletEvents(pod: string): Promise<string[]> {
  const events = (await json(['get', 'events', '--field-selector', `involvedObject.name=${pod}`]))
    .items as Array<{
    reason: string;
    message: string;
    source: { component: string };
  }>;
  return events
    .filter((e) => e.source.component === 'kubelet')
    .map((e) => `${e.reason}: ${e.message}`)
    .sort();
}

beforeAll(async () => {
  const work = await testTempDir('real-node-pods');
  cp = await startLocalControlPlane(release, join(work, 'control-plane'), {
    joinable: true,
    scheduling: true,
  });
  joined = await realKubeadmJoin(
    release,
    join(work, 'win-2022'),
    {
      name: 'win-2022',
      osVersion: '10.0.20348.2340',
      osImage: 'Windows Server 2022 Datacenter',
      kubeletVersion: release.kubernetesVersion,
      address: '192.0.2.22',
      images: () => STORE,
    },
    {
      apiServerEndpoint: cp.join!.apiServerEndpoint,
      token: cp.join!.token,
      caCertHash: cp.join!.caCertHash,
      taints: [{ key: 'os', value: 'windows', effect: 'NoSchedule' }],
    },
  );
  expect(joined.exitCode, joined.stderr).toBe(0);
  await joined.kubelet.registered;
  // Pods wait for the node's pod CIDR from the real IPAM before they get a sandbox.
  const cidr = await pollUntil(
    async () => (await json(['get', 'node', 'win-2022'])).spec.podCIDR !== undefined,
    { timeoutMs: 60_000, intervalMs: 500 },
  );
  expect(cidr).toBe(true);
  await cp.kubectlOk(
    ['apply', '-f', '-'],
    JSON.stringify({ apiVersion: 'v1', kind: 'List', items: [TYPO_RUNTIME_CLASS, ...PODS] }),
  );
  await cp.kubectlOk(
    ['apply', '-f', '-'],
    JSON.stringify({
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'judged', namespace: 'default' },
      spec: { selector: { app: 'judged' }, ports: [{ port: 80 }] },
    }),
  );
}, 180_000);

afterAll(async () => {
  await joined?.kubelet.stop();
  await cp?.stop();
});

describe("the real scheduler's pods on a simulated Windows node: the container model decides", () => {
  it('runs a pod of the node build, and a HostProcess pod of another build at the node address', async () => {
    const pods = await reportedPods();
    for (const name of ['matching', 'hostprocess']) {
      expect(pods[name]!.spec.nodeName).toBe('win-2022');
      expect(pods[name]!.status.phase).toBe('Running');
      expect(condition(pods[name]!, 'Ready')?.status).toBe('True');
    }
    expect(pods['hostprocess']!.status.podIP).toBe('192.0.2.22');
    expect(pods['matching']!.status.podIP).toMatch(/^10\.244\.\d+\.\d+$/);
    expect(await kubeletEvents('matching')).toEqual([
      'Pulled: Successfully pulled image "mcr.microsoft.com/windows/servercore:ltsc2022" in 0s (0s including waiting). Image size: 0 bytes.',
      'Pulling: Pulling image "mcr.microsoft.com/windows/servercore:ltsc2022"',
    ]);
  });

  it('keeps a pod of a newer Windows build Pending in ImagePullBackOff, in containerd words', async () => {
    const pod = (await reportedPods())['newer-build']!;
    expect(pod.status.phase).toBe('Pending');
    expect(pod.status.containerStatuses?.[0]?.state['waiting']?.reason).toBe('ImagePullBackOff');
    expect(condition(pod, 'Ready')).toMatchObject({
      status: 'False',
      reason: 'ContainersNotReady',
      message: 'containers with unready status: [main]',
    });
    const events = await kubeletEvents('newer-build');
    expect(events.find((e) => e.startsWith('Failed: Failed to pull image'))).toMatch(
      /get image config descriptor: no match for platform in manifest sha256:[0-9a-f]{64}: not found$/,
    );
    expect(events).toContain('Failed: Error: ImagePullBackOff');
  });

  it('starts no process-isolated container of the 2019 image in the store: Running, not Ready, CrashLoopBackOff', async () => {
    const pod = (await reportedPods())['stored-other-build']!;
    expect(pod.status.phase).toBe('Running');
    expect(condition(pod, 'Ready')?.status).toBe('False');
    const status = pod.status.containerStatuses![0]!;
    expect(status.state['waiting']?.reason).toBe('CrashLoopBackOff');
    expect(status.lastState?.terminated).toMatchObject({ reason: 'StartError', exitCode: 128 });
    expect(status.lastState?.terminated?.message).toContain(
      'The container operating system does not match the host operating system.',
    );
  });

  it('gives a pod whose RuntimeClass names an unknown handler no sandbox, until the RuntimeClass is fixed', async () => {
    const pod = (await reportedPods())['handler-typo']!;
    expect(pod.status.phase).toBe('Pending');
    expect(pod.status.podIP).toBeUndefined();
    expect(condition(pod, 'PodReadyToStartContainers')).toMatchObject({
      status: 'False',
      reason: 'PodSandboxNotReady',
    });
    expect((await kubeletEvents('handler-typo')).find((e) => e.startsWith('FailedCreatePodSandBox'))).toMatch(
      /^FailedCreatePodSandBox: Failed to create pod sandbox: rpc error: code = Unknown desc = unable to get OCI runtime for sandbox "[0-9a-f]{64}": no runtime for "runhcs-wcow-proces" is configured$/,
    );

    // The handler is immutable: the RuntimeClass is replaced, and the kubelet's next sandbox try runs.
    await cp.kubectlOk(['delete', 'runtimeclass', 'windows-typo']);
    await cp.kubectlOk(
      ['apply', '-f', '-'],
      JSON.stringify({ ...TYPO_RUNTIME_CLASS, handler: 'runhcs-wcow-process' }),
    );
    let fixed: PodObject | undefined;
    const running = await pollUntil(
      async () => {
        fixed = await json(['get', 'pod', 'handler-typo']);
        return fixed?.status.phase === 'Running';
      },
      { timeoutMs: 30_000, intervalMs: 500 },
    );
    expect(running, JSON.stringify(fixed?.status)).toBe(true);
    expect(condition(fixed!, 'Ready')?.status).toBe('True');
  });

  it("gives the real EndpointSlice controller each pod's readiness: the Service serves only the ready ones", async () => {
    type Endpoint = { addresses: string[]; targetRef: { name: string }; conditions: { ready: boolean } };
    let endpoints: Endpoint[] = [];
    // The controller works on its own time: polled until the fixed pod is served too.
    await pollUntil(
      async () => {
        const slices = (await json(['get', 'endpointslices', '-l', 'kubernetes.io/service-name=judged']))
          .items;
        endpoints = slices.flatMap((s: { endpoints?: Endpoint[] }) => s.endpoints ?? []);
        return endpoints.filter((e) => e.conditions.ready).length === 3;
      },
      { timeoutMs: 60_000, intervalMs: 500 },
    );
    const readiness = Object.fromEntries(endpoints.map((e) => [e.targetRef.name, e.conditions.ready]));
    // newer-build has no container created yet, but its sandbox has an address: served, not ready.
    expect(readiness).toEqual({
      matching: true,
      hostprocess: true,
      'handler-typo': true,
      'newer-build': false,
      'stored-other-build': false,
    });
  });
});
