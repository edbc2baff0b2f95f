import { rm } from 'node:fs/promises';
import { afterEach, describe, expect, it } from 'vitest';
import type { ClusterState, KubeObject } from '../../fixtures/lab/cluster-state.js';
import { networkFootprint } from '../../fixtures/lab/state/footprint.js';
import { bridgeAddress, inCidr, type NodeLeftovers } from '../../fixtures/lab/state/leftovers.js';
import { renderManifestObjects } from '../../src/manifests/index.js';
import { initialisedState, labManifestVars } from './helpers.js';

// What an earlier node's pod networking left on a host, carried into the node that joins there
// again: the views fail what the real components fail (fixtures/lab/state/leftovers.ts).
const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })));
});

const phase = (p: KubeObject) => (p['status'] as { phase: string }).phase;
const nodeOf = (p: KubeObject) => (p['spec'] as { nodeName?: string }).nodeName;

/** cp1 (index 0) with flannel, then a Linux worker w1 (index 1, 10.244.1.0/24) and a Windows worker win1 (index 2, 10.244.2.0/24). */
async function cluster(leftovers: { w1?: NodeLeftovers; win1?: NodeLeftovers } = {}): Promise<ClusterState> {
  const { state, init } = await initialisedState();
  dirs.push(state.dir);
  const join = (name: string, os: 'linux' | 'windows', address: string, left?: NodeLeftovers) =>
    state.joinNode({
      name,
      os,
      address,
      token: init.token,
      caCertHash: init.caCertHash,
      ...(left ? { leftovers: left } : {}),
    });
  for (const o of renderManifestObjects('kube-flannel', labManifestVars())) await state.applyObject(o);
  await join('w1', 'linux', '10.233.1.3', leftovers.w1);
  await join('win1', 'windows', '10.233.1.11', leftovers.win1);
  for (const name of [
    'kube-flannel-windows',
    'kube-proxy-windows',
    'runtimeclasses',
    'win-webserver',
  ] as const)
    for (const o of renderManifestObjects(name, labManifestVars())) await state.applyObject(o);
  return state;
}

describe('a Linux node whose host kept a cni0 bridge from an earlier cluster', () => {
  it('fails every pod-network sandbox with the bridge plugin error when the address differs', async () => {
    const state = await cluster({ w1: { cni0: '10.244.2.1/24' } });
    const onW1 = (await state.pods()).filter((p) => nodeOf(p) === 'w1');
    const coredns = onW1.find((p) => p.metadata.name.startsWith('coredns-'))!;
    expect(phase(coredns)).toBe('Pending');
    const events = (await state.events('kube-system')).filter(
      (e) => e.object === `pod/${coredns.metadata.name}`,
    );
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ type: 'Warning', reason: 'FailedCreatePodSandBox' });
    expect(events[0]!.message).toMatch(
      /^Failed to create pod sandbox: rpc error: code = Unknown desc = failed to setup network for sandbox "[0-9a-f]{64}": plugin type="flannel" name="cbr0" failed \(add\): failed to delegate add: failed to set bridge addr: "cni0" already has an IP address different from 10\.244\.1\.1\/24$/,
    );
    // hostNetwork pods (flannel, kube-proxy) need no sandbox network: they run.
    expect(onW1.filter((p) => !p.metadata.name.startsWith('coredns-')).map(phase)).toEqual([
      'Running',
      'Running',
    ]);
  });

  it('runs its pods when the leftover bridge already has the node’s gateway address (same subnet again)', async () => {
    const state = await cluster({ w1: { cni0: '10.244.1.1/24' } });
    expect((await state.pods()).filter((p) => nodeOf(p) === 'w1').map(phase)).toEqual([
      'Running',
      'Running',
      'Running',
    ]);
    expect((await state.events()).filter((e) => e.reason === 'FailedCreatePodSandBox')).toEqual([]);
  });
});

describe('a Windows node whose host kept kube-proxy’s source VIP from an earlier cluster', () => {
  // win1 joins third: its pod subnet is 10.244.2.0/24. The earlier node on its host had 10.244.1.0/24
  // and left the cache as kubemix's run.ps1 writes it. The start script, read by the lab, decides.
  const CACHE = 'C:\\k\\kube-proxy\\source-vip.json';
  const cachedFrom = (subnet: string, vip: string): NodeLeftovers => ({
    hostFiles: { [CACHE]: `{"subnet": "${subnet}", "vip": "${vip}"}\r\n` },
  });

  /** kube-proxy-windows with upstream's old start.ps1 logic: a cached VIP is reused, whatever its subnet. */
  function blindReuse(state: ClusterState): Promise<unknown> {
    const [cm] = renderManifestObjects('kube-proxy-windows', labManifestVars()) as KubeObject[];
    const data = cm!['data'] as Record<string, string>;
    // The subnet check and its else branch go; what is cached is used.
    const guarded =
      /^( *)if \(\$cached\.subnet -eq \$podSubnet\) \{ \$sourceVip = \$cached\.vip \}\n *else \{[^\n]*\}\n/m;
    expect(data['run.ps1']).toMatch(guarded);
    data['run.ps1'] = data['run.ps1']!.replace(guarded, '$1$sourceVip = $cached.vip\n');
    return state.applyObject(cm!);
  }

  async function nodePortFromCp1(state: ClusterState) {
    const svc = (await state.getObject('Service', 'default', 'win-webserver'))!['spec'] as {
      ports: { nodePort: number }[];
    };
    return state.reach({ from: { node: 'cp1' }, url: `http://10.233.1.11:${svc.ports[0]!.nodePort}/` });
  }

  it("kubemix's run.ps1 reserves a new VIP when the cached one is from another subnet: Services work", async () => {
    const state = await cluster({ win1: cachedFrom('10.244.1.0/24', '10.244.1.2') });
    expect((await nodePortFromCp1(state)).ok).toBe(true);
    // The script rewrote the cache for the node's subnet (what a later reset leaves).
    expect(networkFootprint(await state.read(), 'win1')).toMatchObject({
      sourceVip: '10.244.2.2',
      hostFiles: { [CACHE]: '{"subnet": "10.244.2.0/24", "vip": "10.244.2.2"}' },
    });
  });

  it('a start script that reuses the cache blindly gets no Service programmed (Source Vip endpoint creation failed)', async () => {
    const state = await cluster({ win1: cachedFrom('10.244.1.0/24', '10.244.1.2') });
    await blindReuse(state);
    const nodePort = await nodePortFromCp1(state);
    expect(nodePort).toMatchObject({ ok: false, kind: 'refused' });
    expect((nodePort as { reason: string }).reason).toContain(
      'kube-proxy on win1 logs "Source Vip endpoint creation failed" at every sync and programs no Service: its --source-vip 10.244.1.2 is outside the node\'s pod subnet 10.244.2.0/24',
    );
    const winPod = (await state.pods('default')).find((p) => nodeOf(p) === 'win1')!;
    const dns = await state.reach({
      from: { pod: winPod.metadata.name },
      url: 'http://win-webserver.default.svc.cluster.local',
      tool: 'powershell',
    });
    expect(dns.ok).toBe(false);
  });

  it('the same blind reuse works when the cached VIP lies in the new subnet, and on a fresh host', async () => {
    const same = await cluster({ win1: cachedFrom('10.244.2.0/24', '10.244.2.2') });
    await blindReuse(same);
    expect((await nodePortFromCp1(same)).ok).toBe(true);
    const fresh = await cluster();
    await blindReuse(fresh);
    expect((await nodePortFromCp1(fresh)).ok).toBe(true);
  });
});

describe('networkFootprint: what a reset leaves, from what ran on the node', () => {
  it('Linux: cni0 with the subnet gateway, flannel.<vni>, the pod IPs; Windows: the HNS network and the first host-local address as VIP', async () => {
    const state = await cluster();
    const snapshot = await state.read();
    const w1 = networkFootprint(snapshot, 'w1')!;
    expect(w1).toMatchObject({
      podCidr: '10.244.1.0/24',
      cni0: '10.244.1.1/24',
      flannel: { network: 'flannel.4096' },
    });
    expect(w1.podIps.every((ip) => inCidr(ip, '10.244.1.0/24'))).toBe(true);
    expect(w1.podIps.length).toBeGreaterThan(0);
    expect(w1.flannel!.subnetEnv).toContain('FLANNEL_SUBNET=10.244.1.1/24');
    const win1 = networkFootprint(snapshot, 'win1')!;
    expect(win1).toMatchObject({
      podCidr: '10.244.2.0/24',
      flannel: { network: 'flannel.4096' },
      // host-local's first address, as run.ps1 reserved and cached it (read by the lab).
      sourceVip: '10.244.2.2',
      hostFiles: { 'C:\\k\\kube-proxy\\source-vip.json': '{"subnet": "10.244.2.0/24", "vip": "10.244.2.2"}' },
    });
    expect(win1.cni0).toBeUndefined();
    expect(networkFootprint(snapshot, 'nobody')).toBeUndefined();
  });

  it('leaves nothing of flannel or cni0 on a node where nothing ran (kubelet stopped)', async () => {
    const state = await cluster();
    await state.setKubelet('w1', false);
    expect(networkFootprint(await state.read(), 'w1')).toEqual({ podCidr: '10.244.1.0/24', podIps: [] });
  });

  it('computes addresses like the bridge plugin and host-local', () => {
    expect(bridgeAddress('10.244.3.0/24')).toBe('10.244.3.1/24');
    expect(inCidr('10.244.3.200', '10.244.3.0/24')).toBe(true);
    expect(inCidr('10.244.4.2', '10.244.3.0/24')).toBe(false);
  });
});
