import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ClusterState } from '../../fixtures/lab/cluster-state.js';
import { builtRelease } from '../../fixtures/release/built-release.js';
import {
  type JoinInfo,
  type LocalControlPlane,
  startLocalControlPlane,
} from '../../fixtures/release/local-control-plane.js';
import { registerClusterCommands } from '../../fixtures/windows-sim/cluster-commands.js';
import { RealControlPlaneLink } from '../../fixtures/windows-sim/real-join/real-control-plane-link.js';
import { WindowsSimulator } from '../../fixtures/windows-sim/simulator.js';
import { pollUntil } from '../../scripts/lab/poll.js';
import { testTempDir } from '../helpers/temp.js';
import { initialisedState } from '../lab/helpers.js';
import { prepareHost, simShell } from './prepare-host.js';

// Issue 24 item 1 at the interface the playbooks use: join-windows-workers' own command,
// `& C:/k/kubeadm.exe join --config C:/k/kubeadm-join.yaml`, on a simulated Windows Server 2022
// host prepared as prepare-windows prepares it, with the simulator linked to a REAL control plane
// (the release's processes, joinable). The simulator's Windows preflight runs, then the real
// kubeadm joins and the simulated kubelet bootstraps (fixtures/windows-sim/kubeadm-exe-real-join.ts).

const release = builtRelease();
const JOIN = '& C:/k/kubeadm.exe join --config C:/k/kubeadm-join.yaml';
let cp: LocalControlPlane;
let joinInfo: JoinInfo;
let sim: WindowsSimulator;
let link: RealControlPlaneLink;
let unregister: () => void;
let labState: ClusterState;

/** The JoinConfiguration join-windows-workers writes, for this cluster. */
function joinConfiguration(caCertHash: string, name = 'win1', nodeIp = '10.233.1.200'): string {
  return `apiVersion: kubeadm.k8s.io/v1beta4
kind: JoinConfiguration
discovery:
  bootstrapToken:
    apiServerEndpoint: "${joinInfo.apiServerEndpoint}"
    token: "${joinInfo.token}"
    caCertHashes:
      - "${caCertHash}"
nodeRegistration:
  name: "${name}"
  kubeletExtraArgs:
    - name: "windows-priorityclass"
      value: "ABOVE_NORMAL_PRIORITY_CLASS"
    - name: "node-ip"
      value: "${nodeIp}"
`;
}

beforeAll(async () => {
  const work = await testTempDir('real-join-command');
  cp = await startLocalControlPlane(release, join(work, 'control-plane'), { joinable: true });
  joinInfo = cp.join!;
  const { state } = await initialisedState();
  labState = state;
  sim = new WindowsSimulator();
  sim.addHost({ name: 'win1', rebootDownMs: 20 });
  sim.addHost({ name: 'win2019', windowsVersion: '2019', rebootDownMs: 20 });
  sim.addHost({ name: 'win2025', windowsVersion: '2025', rebootDownMs: 20 });
  for (const host of ['win1', 'win2019', 'win2025']) sim.host(host).fs.mkdir('C:/k');
  link = new RealControlPlaneLink(release, join(work, 'nodes'));
  unregister = registerClusterCommands(sim, {
    stateDir: state.dir,
    nodeAddresses: { win1: '10.233.1.200', win2019: '10.233.1.219', win2025: '10.233.1.225' },
    realControlPlane: link,
  });
  for (const host of ['win1', 'win2019', 'win2025']) await prepareHost(sim, host);
}, 120_000);

afterAll(async () => {
  await link?.stop();
  unregister?.();
  sim?.dispose();
  await cp?.stop();
});

describe("join-windows-workers' kubeadm.exe join against a real control plane", () => {
  it('refuses a CA hash that pins nothing with the real kubeadm words, as kubeadm.exe prints them', async () => {
    sim.host('win1').fs.write('C:/k/kubeadm-join.yaml', joinConfiguration(`sha256:${'1'.repeat(64)}`));
    const refused = await simShell(sim, JOIN);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(
      `error: error execution phase preflight: couldn't validate the identity of the API Server: cluster CA found in cluster-info ConfigMap is invalid: none of the public keys "${joinInfo.caCertHash}" are pinned\r\n`,
    );
    expect(sim.host('win1').fs.exists('C:/etc/kubernetes/kubelet.conf')).toBe(false);
  });

  it('joins: kubeadm says so, the host has its kubelet files, and the real API has the Node at its node-ip', async () => {
    sim.host('win1').fs.write('C:/k/kubeadm-join.yaml', joinConfiguration(joinInfo.caCertHash));
    const joined = await simShell(sim, JOIN, 'win1', { creates: 'C:/etc/kubernetes/kubelet.conf' });
    expect(joined.code, joined.stderr).toBe(0);
    expect(joined.stdout).toContain('This node has joined the cluster');
    expect(joined.stdout + joined.stderr).not.toContain(joinInfo.token);
    // This Linux machine's preflight warnings are not the Windows node's to print.
    expect(joined.stdout + joined.stderr).not.toContain('[WARNING');
    // Nor does the real kubeadm's configuration, which holds the token, stay behind.
    expect(existsSync(join(link.rootOf('win1'), 'join-configuration.yaml'))).toBe(false);
    const host = sim.host('win1');
    expect(host.fs.read('C:/etc/kubernetes/kubelet.conf')!.toString()).toContain(
      `server: https://${joinInfo.apiServerEndpoint}`,
    );
    expect(host.fs.read('C:/var/lib/kubelet/kubeadm-flags.env')!.toString()).toContain(
      '--windows-priorityclass=ABOVE_NORMAL_PRIORITY_CLASS',
    );
    let node: {
      metadata: { labels: Record<string, string> };
      status: { addresses: Array<{ type: string; address: string }>; nodeInfo: { kubeletVersion: string } };
    } = { metadata: { labels: {} }, status: { addresses: [], nodeInfo: { kubeletVersion: '' } } };
    // A poll of the API: the kubelet registers its Node just after kubeadm returns.
    const registered = await pollUntil(
      async () => {
        const got = await cp.kubectl(['get', 'node', 'win1', '-o', 'json']);
        if (got.exitCode === 0) node = JSON.parse(got.stdout);
        return got.exitCode === 0;
      },
      { timeoutMs: 30_000, intervalMs: 250 },
    );
    expect(registered).toBe(true);
    expect(node.metadata.labels['node.kubernetes.io/windows-build']).toBe('10.0.20348');
    expect(node.status.addresses).toContainEqual({ type: 'InternalIP', address: '10.233.1.200' });
    // The kubelet PrepareNode.ps1 installed (v1.36.4), not the control plane's release.
    expect(node.status.nodeInfo.kubeletVersion).toBe('v1.36.4');
    // The node joined the real cluster only: the lab's cluster state has no such node.
    expect((await labState.read()).nodes.map((n) => n.name)).not.toContain('win1');
  }, 120_000);

  it('joins two nodes at once, each with its own Node and build', async () => {
    // join-windows-workers runs on every Windows host in parallel; their kubelets share this
    // machine's loopback for kubeadm's health check.
    const hosts = [
      { host: 'win2019', ip: '10.233.1.219', build: '10.0.17763' },
      { host: 'win2025', ip: '10.233.1.225', build: '10.0.26100' },
    ];
    for (const { host, ip } of hosts)
      sim.host(host).fs.write('C:/k/kubeadm-join.yaml', joinConfiguration(joinInfo.caCertHash, host, ip));
    const joins = await Promise.all(hosts.map(({ host }) => simShell(sim, JOIN, host)));
    for (const joined of joins) expect(joined.code, joined.stderr).toBe(0);
    for (const { host, ip, build } of hosts) {
      // A poll of the API: each kubelet registers its Node just after its kubeadm returns.
      const registered = await pollUntil(
        async () => (await cp.kubectl(['get', 'node', host])).exitCode === 0,
        { timeoutMs: 30_000, intervalMs: 250 },
      );
      expect(registered, host).toBe(true);
      const node = JSON.parse(await cp.kubectlOk(['get', 'node', host, '-o', 'json']));
      expect(node.metadata.labels['node.kubernetes.io/windows-build']).toBe(build);
      expect(node.status.addresses).toContainEqual({ type: 'InternalIP', address: ip });
    }
  }, 120_000);

  it("kubeadm.exe reset stops the node's simulated kubelet and removes what the join wrote", async () => {
    // cleanup-windows' command, on a node that joined the real control plane.
    expect(link.kubelets.has('win2019')).toBe(true);
    const reset = await simShell(sim, '& C:/k/kubeadm.exe reset -f', 'win2019');
    expect(reset.code, reset.stderr).toBe(0);
    expect(link.kubelets.has('win2019')).toBe(false);
    expect(existsSync(link.rootOf('win2019'))).toBe(false);
    expect(sim.host('win2019').fs.exists('C:/etc/kubernetes/kubelet.conf')).toBe(false);
    // The other nodes' kubelets run on.
    expect(link.kubelets.has('win2025')).toBe(true);
  }, 60_000);
});
