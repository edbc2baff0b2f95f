import { describe, expect, it } from 'vitest';
import type { ClusterState, KubeObject, ReachResult } from '../../fixtures/lab/cluster-state.js';
import { renderManifestObjects } from '../../src/manifests/index.js';
import { initialisedState, labManifestVars } from './helpers.js';

/**
 * The reachability model behind the verify checks: a healthy mixed cluster passes all six
 * checks of the Kubernetes Windows guide, and each broken piece fails the checks it breaks in
 * a real cluster, for that reason.
 */

const WIN_DNS = 'http://win-webserver.default.svc.cluster.local';
const OUTSIDE = 'https://www.microsoft.com';

async function applyAll(state: ClusterState, objects: KubeObject[]) {
  for (const o of objects) await state.applyObject(o);
}

const podIp = (p: KubeObject) => (p['status'] as { podIP?: string }).podIP!;
const nodeOf = (p: KubeObject) => (p['spec'] as { nodeName: string }).nodeName;
const phase = (p: KubeObject) => (p['status'] as { phase: string }).phase;

/**
 * cp1 (Linux control plane, 10.233.1.2), w1 (Linux worker), `windows` Windows workers, flannel
 * on both sides with `windowsVni`, Windows kube-proxy, win-webserver and verify's Linux workload
 * (agnhost netexec on w1, Service linux-netexec port 80 -> the named port http, 8080).
 */
async function mixedCluster(options: { windows?: number; windowsVni?: number } = {}) {
  const { state, init } = await initialisedState();
  const join = (name: string, os: 'linux' | 'windows', address: string) =>
    state.joinNode({ name, os, address, token: init.token, caCertHash: init.caCertHash });
  await applyAll(state, renderManifestObjects('kube-flannel', labManifestVars()));
  await join('w1', 'linux', '10.233.1.3');
  const winNames: string[] = [];
  for (let i = 1; i <= (options.windows ?? 1); i++) {
    await join(`win${i}`, 'windows', `10.233.1.${10 + i}`);
    winNames.push(`win${i}`);
  }
  const winVars = labManifestVars(options.windowsVni ?? 4096, 4789);
  await applyAll(state, renderManifestObjects('kube-flannel-windows', winVars));
  await applyAll(state, renderManifestObjects('kube-proxy-windows', winVars));
  await applyAll(state, renderManifestObjects('runtimeclasses', labManifestVars()));
  await applyAll(state, renderManifestObjects('win-webserver', labManifestVars()));
  await applyAll(state, renderManifestObjects('linux-netexec', labManifestVars()));
  const svc = async (name: string) => {
    const spec = (await state.getObject('Service', 'default', name))!['spec'] as {
      clusterIP: string;
      ports: { nodePort?: number }[];
    };
    return { vip: spec.clusterIP, nodePort: spec.ports[0]!.nodePort };
  };
  const pods = async (prefix: string) =>
    (await state.pods('default')).filter((p) => p.metadata.name.startsWith(`${prefix}-`));
  return { state, winNames, svc, pods };
}

type Cluster = Awaited<ReturnType<typeof mixedCluster>>;

/** The six checks, as verify.yml runs them (from the controller cp1, or from a win-webserver pod). */
async function sixChecks({ state, svc, pods }: Cluster): Promise<Record<string, ReachResult>> {
  const win = (await pods('win-webserver')).filter((p) => phase(p) === 'Running');
  const [a, b] = win;
  const { vip, nodePort } = await svc('win-webserver');
  const fromPod = (url: string) => state.reach({ from: { pod: a!.metadata.name }, url, tool: 'powershell' });
  return {
    'node-to-pod': await state.reach({
      from: { node: 'cp1' },
      url: `http://${podIp(a!)}`,
      maxTimeMs: 10_000,
    }),
    'pod-to-pod': await fromPod(`http://${podIp(b ?? a!)}`),
    'service-vip': await state.reach({ from: { node: 'cp1' }, url: `http://${vip}` }),
    'service-dns': await fromPod(WIN_DNS),
    nodeport: await state.reach({ from: { node: 'cp1' }, url: `http://10.233.1.11:${nodePort}` }),
    outbound: await fromPod(OUTSIDE),
  };
}

const failed = (checks: Record<string, ReachResult>) =>
  Object.entries(checks)
    .filter(([, r]) => !r.ok)
    .map(([name]) => name);

describe('lab reachability: a healthy mixed cluster', () => {
  it('passes all six checks; pods answer with their own IP', async () => {
    const cluster = await mixedCluster({ windows: 2 });
    const win = await cluster.pods('win-webserver');
    expect(win.map(nodeOf)).toEqual(['win1', 'win2']);
    const checks = await sixChecks(cluster);
    expect(failed(checks)).toEqual([]);
    const nodeToPod = checks['node-to-pod']!;
    expect(nodeToPod).toMatchObject({ ok: true, status: 200, servedBy: `default/${win[0]!.metadata.name}` });
    expect(nodeToPod.ok && nodeToPod.body).toContain(`pod IP: ${podIp(win[0]!)}`);
    expect(checks['service-dns']).toMatchObject({ ok: true, status: 200 });
    expect(checks['outbound']).toMatchObject({ ok: true, status: 200, servedBy: 'outside' });
  });

  it('computes Endpoints from the Running pods matching the selector', async () => {
    const cluster = await mixedCluster({ windows: 2 });
    const ep = await cluster.state.getObject('Endpoints', 'default', 'win-webserver');
    const subsets = ep!['subsets'] as {
      addresses: { ip: string; nodeName: string }[];
      ports: { port: number }[];
    }[];
    const win = await cluster.pods('win-webserver');
    expect(subsets[0]!.addresses.map((a) => [a.ip, a.nodeName])).toEqual(
      win.map((p) => [podIp(p), nodeOf(p)]),
    );
    expect(subsets[0]!.ports).toEqual([{ name: 'http', port: 80, protocol: 'TCP' }]);
    // A named targetPort resolves to the pod's container port.
    const web = await cluster.state.getObject('Endpoints', 'default', 'linux-netexec');
    expect((web!['subsets'] as { ports: { port: number }[] }[])[0]!.ports[0]!.port).toBe(8080);
  });

  it('lab nodes are offline; cluster names resolve only inside pods; unknown ports are refused', async () => {
    const { state, pods } = await mixedCluster();
    expect(await state.reach({ from: { node: 'cp1' }, url: OUTSIDE })).toMatchObject({
      ok: false,
      kind: 'resolve',
      error: 'curl: (6) Could not resolve host: www.microsoft.com',
      exitCode: 6,
    });
    expect(await state.reach({ from: { node: 'cp1' }, url: WIN_DNS })).toMatchObject({
      ok: false,
      error: 'curl: (6) Could not resolve host: win-webserver.default.svc.cluster.local',
    });
    const [a] = await pods('win-webserver');
    expect(await state.reach({ from: { node: 'cp1' }, url: `http://${podIp(a!)}:8080` })).toMatchObject({
      ok: false,
      kind: 'refused',
      error: `curl: (7) Failed to connect to ${podIp(a!)} port 8080 after 0 ms: Couldn't connect to server`,
    });
    const fromPod = { pod: a!.metadata.name };
    expect(
      await state.reach({ from: fromPod, url: 'http://win-webserver', tool: 'powershell' }),
    ).toMatchObject({
      ok: true,
    });
    expect(
      await state.reach({ from: fromPod, url: 'http://nope.default.svc.cluster.local', tool: 'powershell' }),
    ).toMatchObject({
      ok: false,
      kind: 'resolve',
      error: "The remote name could not be resolved: 'nope.default.svc.cluster.local'",
      exitCode: 1,
    });
    await expect(state.reach({ from: { pod: 'missing' }, url: 'http://x' })).rejects.toThrow(
      'pods "missing" not found in namespace default',
    );
  });

  it('a Windows node cannot reach the VIP of a Service whose endpoints run on itself; its pods can', async () => {
    const { state, svc, pods } = await mixedCluster({ windows: 1 });
    const { vip } = await svc('win-webserver');
    const fromNode = await state.reach({ from: { node: 'win1' }, url: `http://${vip}` });
    expect(fromNode).toMatchObject({ ok: false, kind: 'timeout' });
    expect(!fromNode.ok && fromNode.reason).toMatch(/endpoints run on win1 itself/);
    const [a] = await pods('win-webserver');
    expect(await state.reach({ from: { pod: a!.metadata.name }, url: `http://${vip}` })).toMatchObject({
      ok: true,
    });
    // The Linux Service's VIP is fine from the Windows node.
    expect(
      await state.reach({
        from: { node: 'win1' },
        url: `http://${(await svc('linux-netexec')).vip}/hostname`,
      }),
    ).toMatchObject({
      ok: true,
      status: 200,
    });
  });
});

describe('lab reachability: netexec between Linux and Windows pods', () => {
  /** netexec /dial on the Linux client pod, sent from cp1, to a Windows pod's port 80. */
  async function dialWindows(windowsVni: number) {
    const cluster = await mixedCluster({ windows: 1, windowsVni });
    const [client] = await cluster.pods('linux-netexec-client');
    const [win] = await cluster.pods('win-webserver');
    const url = `http://${podIp(client!)}:8080/dial?request=hostname&protocol=http&host=${podIp(win!)}&port=80&tries=1`;
    return { win: win!, result: await cluster.state.reach({ from: { node: 'cp1' }, url }) };
  }

  it('a Linux pod reaches a Windows pod over the VXLAN; the page comes back escaped as Go JSON does', async () => {
    const { win, result } = await dialWindows(4096);
    expect(result).toMatchObject({
      ok: true,
      status: 200,
      body: `{"responses":["\\u003chtml\\u003e\\u003cbody\\u003e\\u003ch1\\u003ewin-webserver\\u003c/h1\\u003e\\u003cp\\u003epod IP: ${podIp(win)}\\u003c/p\\u003e\\u003c/body\\u003e\\u003c/html\\u003e"]}`,
    });
  });

  it('with the Windows VNI apart from the Linux one, the request times out inside netexec', async () => {
    const { win, result } = await dialWindows(4097);
    const ip = podIp(win);
    expect(result).toMatchObject({
      ok: true,
      body: `{"errors":["Get \\"http://${ip}:80/hostname\\": dial tcp ${ip}:80: i/o timeout (Client.Timeout exceeded while awaiting headers)"]}`,
    });
  });
});

describe('lab reachability: each broken piece fails its checks for the right reason', () => {
  it('no Windows kube-proxy: the Service VIP from the Windows node and the NodePort fail', async () => {
    const cluster = await mixedCluster();
    const { state, svc } = cluster;
    const { nodePort } = await svc('win-webserver');
    const { vip: webVip } = await svc('linux-netexec');
    expect(await state.reach({ from: { node: 'win1' }, url: `http://${webVip}/hostname` })).toMatchObject({
      ok: true,
    });
    expect(await state.deleteObject('DaemonSet', 'kube-system', 'kube-proxy-windows')).toBe(true);

    const vip = await state.reach({
      from: { node: 'win1' },
      url: `http://${webVip}/hostname`,
      connectTimeoutMs: 5000,
    });
    expect(vip).toMatchObject({
      ok: false,
      kind: 'timeout',
      error: `curl: (28) Failed to connect to ${webVip} port 80 after 5000 ms: Timeout was reached`,
    });
    expect(!vip.ok && vip.reason).toBe(
      'no kube-proxy runs on win1 (windows): nothing programs Service VIPs there',
    );
    const nodeport = await state.reach({ from: { node: 'cp1' }, url: `http://10.233.1.11:${nodePort}` });
    expect(nodeport).toMatchObject({ ok: false, kind: 'refused' });
    expect(!nodeport.ok && nodeport.reason).toBe(
      `no kube-proxy runs on win1 (windows): nothing serves NodePort ${nodePort}`,
    );
    // The Linux side keeps working.
    expect(await state.reach({ from: { node: 'cp1' }, url: `http://${webVip}/hostname` })).toMatchObject({
      ok: true,
    });
  });

  it('VNI mismatch (Windows 4097, Linux 4096): pods run, but paths between Linux and Windows drop', async () => {
    const cluster = await mixedCluster({ windows: 2, windowsVni: 4097 });
    const { state, pods } = cluster;
    const win = await pods('win-webserver');
    expect(win.map(phase)).toEqual(['Running', 'Running']);
    const checks = await sixChecks(cluster);
    const nodeToPod = checks['node-to-pod']!;
    expect(nodeToPod).toMatchObject({
      ok: false,
      kind: 'timeout',
      error: 'curl: (28) Connection timed out after 10000 milliseconds',
    });
    expect(!nodeToPod.ok && nodeToPod.reason).toMatch(
      /^cp1 -> pod default\/win-webserver-\S+ on win1: VXLAN mismatch: cp1 uses VNI 4096 port 4789 \(kube-flannel-cfg\), win1 uses VNI 4097 port 4789 \(kube-flannel-windows-cfg\)/,
    );
    // Pod to pod from the Linux side to a Windows pod drops too.
    const [web] = await pods('linux-netexec');
    const linuxToWin = await state.reach({
      from: { pod: web!.metadata.name },
      url: `http://${podIp(win[1]!)}`,
    });
    expect(linuxToWin).toMatchObject({ ok: false, kind: 'timeout' });
    expect(!linuxToWin.ok && linuxToWin.reason).toMatch(/VXLAN mismatch/);
    // Both Windows nodes use 4097: between them the overlay agrees, as it would on a real cluster.
    expect(checks['pod-to-pod']).toMatchObject({ ok: true });
    // CoreDNS runs on Linux nodes: names stop resolving in Windows pods; NodePort stays on the underlay.
    expect(failed(checks)).toEqual(['node-to-pod', 'service-vip', 'service-dns', 'outbound']);
    const dns = checks['service-dns']!;
    expect(!dns.ok && dns.reason).toMatch(
      /^CoreDNS is unreachable from pod default\/win-webserver-\S+: .*VXLAN mismatch/,
    );
  });

  it('VNI mismatch on one Windows node against Linux: pod-to-pod between a Linux and a Windows pod fails', async () => {
    const cluster = await mixedCluster({ windows: 1, windowsVni: 4097 });
    const [web] = await cluster.pods('linux-netexec');
    const [win] = await cluster.pods('win-webserver');
    const r = await cluster.state.reach({
      from: { pod: win!.metadata.name },
      url: `http://${podIp(web!)}:8080`,
      tool: 'powershell',
    });
    expect(r).toMatchObject({
      ok: false,
      kind: 'timeout',
      error: 'Unable to connect to the remote server',
      exitCode: 1,
    });
  });

  it('CoreDNS not Running: service-dns fails; the VIP itself still answers', async () => {
    const cluster = await mixedCluster();
    await cluster.state.deleteObject('Deployment', 'kube-system', 'coredns');
    const checks = await sixChecks(cluster);
    expect(failed(checks)).toEqual(['service-dns', 'outbound']);
    // Nothing answers at the cluster DNS address: the client times out (curl and PowerShell word it as a name that does not resolve).
    expect(checks['service-dns']).toMatchObject({
      ok: false,
      kind: 'dns-timeout',
      error: "The remote name could not be resolved: 'win-webserver.default.svc.cluster.local'",
      reason: 'CoreDNS has no Running pod (Service kube-system/kube-dns has no endpoints)',
    });
  });

  it('no OutBoundNAT policy in the Windows CNI config: outbound fails; Linux pods still get out', async () => {
    const cluster = await mixedCluster();
    const cm = (await cluster.state.getObject('ConfigMap', 'kube-flannel', 'kube-flannel-windows-cfg'))!;
    const data = cm['data'] as Record<string, string>;
    const cni = JSON.parse(data['cni-conf.json']!) as {
      delegate: { AdditionalArgs: { Value: { Type: string } }[] };
    };
    cni.delegate.AdditionalArgs = cni.delegate.AdditionalArgs.filter((a) => a.Value.Type !== 'OutBoundNAT');
    const { uid: _u, resourceVersion: _r, creationTimestamp: _c, generation: _g, ...metadata } = cm.metadata;
    await cluster.state.applyObject({
      ...cm,
      metadata,
      data: { ...data, 'cni-conf.json': JSON.stringify(cni) },
    });
    const checks = await sixChecks(cluster);
    expect(failed(checks)).toEqual(['outbound']);
    const outbound = checks['outbound']!;
    expect(outbound).toMatchObject({
      ok: false,
      kind: 'timeout',
      error: 'Unable to connect to the remote server',
    });
    expect(!outbound.ok && outbound.reason).toMatch(
      /no OutBoundNAT endpoint policy in kube-flannel-windows-cfg/,
    );
    const [web] = await cluster.pods('linux-netexec');
    expect(await cluster.state.reach({ from: { pod: web!.metadata.name }, url: OUTSIDE })).toMatchObject({
      ok: true,
    });
  });
});
