import { rm } from 'node:fs/promises';
import { afterEach, describe, expect, it } from 'vitest';
import type { ClusterState, KubeObject, NodeNic } from '../../fixtures/lab/cluster-state.js';
import { renderManifestObjects } from '../../src/manifests/index.js';
import { initialisedState, labManifestVars } from './helpers.js';
import { NAT_FIRST } from './hostprocess-helpers.js';

// A Windows node's pod network as the lab derives it from its HostProcess pods: the flannel
// container's start script decides whether flanneld runs, on which address, whether the HNS
// network exists; kube-proxy, the node's readiness and the Windows pods follow.

const cleanup: string[] = [];
afterEach(async () => {
  for (const dir of cleanup.splice(0)) await rm(dir, { recursive: true, force: true });
});

const status = (p: KubeObject) =>
  p['status'] as {
    phase: string;
    podIP?: string;
    conditions: { type: string; status: string }[];
    containerStatuses: {
      ready: boolean;
      restartCount: number;
      state: { waiting?: { reason: string; message?: string } };
      lastState?: { terminated?: { exitCode: number; message: string } };
    }[];
  };
const ready = (o: KubeObject | undefined) =>
  (o?.['status'] as { conditions?: { type: string; status: string }[] } | undefined)?.conditions?.find(
    (c) => c.type === 'Ready',
  )?.status;

/** Replaces kube-flannel-windows-cfg's run.ps1 (a start script as another version of kubemix had it). */
function withRunPs1(objects: KubeObject[], edit: (script: string) => string): KubeObject[] {
  return objects.map((o) => {
    if (o.kind !== 'ConfigMap' || o.metadata.name !== 'kube-flannel-windows-cfg') return o;
    const data = o['data'] as Record<string, string>;
    const script = edit(data['run.ps1']!);
    expect(script).not.toBe(data['run.ps1']);
    return { ...o, data: { ...data, 'run.ps1': script } };
  });
}

// The token copy kubemix's run.ps1 made before the containerd 1.7 fix.
const oldTokenCopy = (script: string) =>
  script.replace(
    /\$hostToken = [\s\S]*?\n}\n/,
    "New-Item -ItemType Directory -Force -Path $tokenDir | Out-Null\nCopy-Item -Force -Path (Join-Path $sandbox 'var\\run\\secrets\\kubernetes.io\\serviceaccount\\*') -Destination $tokenDir\n",
  );
// Its interface choice: the default route's adapter (as upstream's start.ps1 chose it too).
const oldDefaultRouteIface = (script: string) =>
  script.replace(
    '$nodeIp = $env:NODE_IP',
    "$route = Get-NetRoute -AddressFamily IPv4 -DestinationPrefix '0.0.0.0/0' | Sort-Object -Property RouteMetric | Select-Object -First 1\n$nodeIp = Get-NetIPAddress -AddressFamily IPv4 -InterfaceIndex $route.ifIndex | Select-Object -First 1 -ExpandProperty IPAddress",
  );

/** cp1 + a Linux worker + win1 (containerd 1.7, NAT adapter first) with the Windows DaemonSets and win-webserver. */
async function cluster(options: { windowsAddress?: string; edit?: (s: string) => string } = {}) {
  const { state, init } = await initialisedState();
  cleanup.push(state.dir);
  const apply = async (objects: KubeObject[]) => {
    for (const o of objects) await state.applyObject(o);
  };
  await apply(renderManifestObjects('kube-flannel', labManifestVars()));
  await state.joinNode({
    name: 'w1',
    os: 'linux',
    address: '10.233.1.3',
    token: init.token,
    caCertHash: init.caCertHash,
  });
  await state.joinNode({
    name: 'win1',
    os: 'windows',
    address: options.windowsAddress ?? '10.233.1.200',
    nics: NAT_FIRST,
    containerRuntimeVersion: 'containerd://1.7.22',
    token: init.token,
    caCertHash: init.caCertHash,
  });
  const windows = renderManifestObjects('kube-flannel-windows', labManifestVars());
  await apply(options.edit ? withRunPs1(windows, options.edit) : windows);
  await apply(renderManifestObjects('kube-proxy-windows', labManifestVars()));
  await apply(renderManifestObjects('runtimeclasses', labManifestVars()));
  await apply(renderManifestObjects('win-webserver', labManifestVars()));
  return state;
}

const podOf = async (state: ClusterState, ns: string, prefix: string) =>
  (await state.pods(ns)).filter((p) => p.metadata.name.startsWith(prefix));

describe('Windows flannel on containerd 1.7', () => {
  it("kubemix's start script runs flanneld on the node's InternalIP; the node, kube-proxy and win-webserver follow", async () => {
    const state = await cluster();
    const [flannel] = await podOf(state, 'kube-flannel', 'kube-flannel-ds-windows-amd64-');
    expect(status(flannel!).containerStatuses[0]).toMatchObject({ ready: true, restartCount: 0 });
    expect(ready(await state.getObject('Node', undefined, 'win1'))).toBe('True');
    const web = await podOf(state, 'default', 'win-webserver-');
    expect(web.map((p) => status(p).phase)).toEqual(['Running', 'Running']);
    const answer = await state.reach({ from: { node: 'cp1' }, url: `http://${status(web[0]!).podIP}` });
    expect(answer).toMatchObject({ ok: true });
  });

  it('the old token copy onto the read-only mount crash-loops flannel: no HNS network, kube-proxy waits, Windows pods never start', async () => {
    const state = await cluster({ edit: oldTokenCopy });
    const [flannel] = await podOf(state, 'kube-flannel', 'kube-flannel-ds-windows-amd64-');
    const container = status(flannel!).containerStatuses[0]!;
    expect(status(flannel!).phase).toBe('Running');
    expect(ready(flannel)).toBe('False');
    expect(container.state.waiting?.reason).toBe('CrashLoopBackOff');
    expect(container.restartCount).toBeGreaterThan(0);
    expect(container.lastState?.terminated).toMatchObject({ exitCode: 1 });
    expect(container.lastState?.terminated?.message).toContain(
      "Copy-Item : Access to the path 'C:\\var\\run\\secrets\\kubernetes.io\\serviceaccount\\ca.crt' is denied.",
    );
    const events = await state.events();
    expect(events.some((e) => e.reason === 'BackOff' && e.object === `pod/${flannel!.metadata.name}`)).toBe(
      true,
    );
    const web = await podOf(state, 'default', 'win-webserver-');
    expect(web.map((p) => status(p).phase)).toEqual(['Pending', 'Pending']);
    expect(
      events.find((e) => e.reason === 'FailedCreatePodSandBox' && e.namespace === 'default')?.message,
    ).toMatch(/Network flannel\.4096 not found \(kubemix lab: the flannel container on win1 keeps exiting/);
    // Service VIPs need kube-proxy.exe, which waits for the network forever.
    const vip = await state.reach({ from: { node: 'win1' }, url: 'http://10.96.0.10:53' });
    expect(vip).toMatchObject({ ok: false, reason: expect.stringContaining('no kube-proxy runs on win1') });
  });

  it('a node without an InternalIP (a --node-ip the kubelet refused) gets no NODE_IP: flannel stops before its CNI config, the node stays NotReady', async () => {
    const state = await cluster({ windowsAddress: '' });
    const [flannel] = await podOf(state, 'kube-flannel', 'kube-flannel-ds-windows-amd64-');
    expect(status(flannel!).containerStatuses[0]!.lastState?.terminated?.message).toContain(
      'NODE_IP is not set: the DaemonSet passes status.hostIP as NODE_IP',
    );
    const node = await state.getObject('Node', undefined, 'win1');
    expect(ready(node)).toBe('False');
    expect((node!['status'] as { addresses: { type: string }[] }).addresses.map((a) => a.type)).toEqual([
      'Hostname',
    ]);
  });
});

describe('a Windows node with a NAT adapter first (Vagrant, libvirt user networking)', () => {
  it('flannel on the default route tunnels from the NAT address: paths between nodes drop', async () => {
    const state = await cluster({ edit: oldDefaultRouteIface });
    const web = await podOf(state, 'default', 'win-webserver-');
    expect(web.map((p) => status(p).phase)).toEqual(['Running', 'Running']);
    const answer = await state.reach({ from: { node: 'cp1' }, url: `http://${status(web[0]!).podIP}` });
    expect(answer).toMatchObject({
      ok: false,
      kind: 'timeout',
      reason: expect.stringContaining(
        'flannel on win1 tunnels VXLAN from 10.0.2.15, an address on a NAT adapter',
      ),
    });
  });

  it('a node registered on its NAT address cannot be reached on its NodePort from another node', async () => {
    const state = await cluster({ windowsAddress: '10.0.2.15' });
    const svc = (await state.listObjects('Service', 'default')).find(
      (s) => s.metadata.name === 'win-webserver',
    )!;
    const nodePort = (svc['spec'] as { ports: { nodePort: number }[] }).ports[0]!.nodePort;
    const answer = await state.reach({ from: { node: 'cp1' }, url: `http://10.0.2.15:${nodePort}` });
    expect(answer).toMatchObject({
      ok: false,
      reason: expect.stringContaining(
        'win1 registered 10.0.2.15 as its InternalIP, an address on a NAT adapter',
      ),
    });
  });
});
