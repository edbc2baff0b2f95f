import { readFile, rm } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ClusterState } from '../../fixtures/lab/cluster-state.js';
import { registerClusterCommands } from '../../fixtures/windows-sim/cluster-commands.js';
import { pinnedScriptUrls } from '../../fixtures/windows-sim/cluster-commands-support.js';
import { hnsNetworks } from '../../fixtures/windows-sim/network-leftovers.js';
import { WindowsSimulator } from '../../fixtures/windows-sim/simulator.js';
import { renderManifestObjects } from '../../src/manifests/index.js';
import { commandAction } from '../../src/modules/windows/command-common.js';
import { winGetUrlModule, winGetUrlScript } from '../../src/modules/windows/win-get-url.js';
import { winServiceModule, winServiceScript } from '../../src/modules/windows/win-service.js';
import { winShellBody, winShellModule } from '../../src/modules/windows/win-shell.js';
import { parseTaskFile } from '../../src/playbook/index.js';
import { renderValue } from '../../src/template/render.js';
import { loadVersions } from '../../src/versions/versions.js';
import { initialisedState, labManifestVars } from '../lab/helpers.js';
import { type Ran, runScript } from './helpers.js';

// What a Windows node's pod networking leaves after `kubeadm.exe reset` on the simulator, what a
// new join inherits, and cleanup-windows' HNS removal, driven with the playbooks' own scripts.
let sim: WindowsSimulator;
let state: ClusterState;
let init: { token: string; caCertHash: string };

const CLEANUP = fileURLToPath(new URL('../../playbooks/cluster/cleanup-windows.yml', import.meta.url));
const INSTALL =
  "& C:/k/Install-Containerd.ps1 -ContainerDVersion 1.7.22 -skipHypervisorSupportCheck -CNIBinPath 'c:/opt/cni/bin' -CNIConfigPath 'c:/etc/cni/net.d'";

function shell(args: Record<string, unknown>): Promise<Ran> {
  const parsed = winShellModule.parseArgs(args);
  return runScript(sim, 'win1', commandAction('win_shell', parsed, winShellBody(parsed)).command);
}
const cmd = (line: string) => shell({ cmd: line });

/** cleanup-windows.yml's task `name`, rendered with the plan's flannel_vni. */
async function cleanupTask(name: string): Promise<Record<string, unknown>> {
  const task = parseTaskFile(await readFile(CLEANUP, 'utf8'), CLEANUP).find((t) => t.name === name);
  if (!task) throw new Error(`cleanup-windows.yml has no task "${name}"`);
  return renderValue(task.args, { flannel_vni: 4096 });
}

/**
 * The simulator's Windows node, prepared and joined as the playbooks do, kubelet running. `again`:
 * a host prepared before, whose binaries and services prepare-windows finds current (it runs
 * neither script then).
 */
async function joinWin1(again = false): Promise<void> {
  const host = sim.host('win1');
  if (!again) await prepareWin1();
  host.fs.write(
    'C:/k/kubeadm-join.yaml',
    `apiVersion: kubeadm.k8s.io/v1beta4\nkind: JoinConfiguration\ndiscovery:\n  bootstrapToken:\n    apiServerEndpoint: "10.233.1.2:6443"\n    token: "${init.token}"\n    caCertHashes:\n      - "${init.caCertHash}"\nnodeRegistration:\n  name: win1\n`,
  );
  expect((await cmd('& C:/k/kubeadm.exe join --config C:/k/kubeadm-join.yaml')).code).toBe(0);
  const start = winServiceScript(winServiceModule.parseArgs({ name: 'kubelet', state: 'started' }), false);
  expect((await runScript(sim, 'win1', start)).code).toBe(0);
}

/** containerd and PrepareNode.ps1 on a fresh win1, as prepare-windows runs them. */
async function prepareWin1(): Promise<void> {
  const host = sim.host('win1');
  for (const { name, url } of pinnedScriptUrls(loadVersions()))
    await runScript(
      sim,
      'win1',
      winGetUrlScript(winGetUrlModule.parseArgs({ url, dest: `C:/k/${name}` }), false),
    );
  await cmd(INSTALL);
  host.boot();
  expect((await cmd(INSTALL)).code).toBe(0);
  expect((await cmd('& C:/k/PrepareNode.ps1 -KubernetesVersion v1.31.2 -HostnameOverride win1')).code).toBe(
    0,
  );
}

beforeEach(async () => {
  ({ state, init } = await initialisedState());
  for (const name of ['kube-flannel', 'kube-flannel-windows', 'kube-proxy-windows'] as const)
    for (const o of renderManifestObjects(name, labManifestVars())) await state.applyObject(o);
  sim = new WindowsSimulator();
  sim.addHost({ name: 'win1', rebootDownMs: 20 });
  sim.host('win1').fs.mkdir('C:/k');
  registerClusterCommands(sim, { stateDir: state.dir, nodeAddresses: { win1: '10.233.1.200' } });
});

afterEach(async () => {
  sim.dispose();
  await rm(state.dir, { recursive: true, force: true });
});

describe('kubeadm.exe reset leaves the pod network on the host', () => {
  it('keeps the HNS network, subnet.env, host-local data and the cached source VIP of the node', async () => {
    const host = sim.host('win1');
    await joinWin1();
    const reset = await cmd(
      "if (Test-Path C:/k/kubeadm.exe) { & C:/k/kubeadm.exe reset -f } else { Write-Output 'kubeadm is not installed: nothing to reset' }",
    );
    expect(reset.code).toBe(0);
    expect((await state.read()).nodes.map((n) => n.name)).toEqual(['cp1']);
    // win1 joined second: the cluster's second /24.
    expect([...hnsNetworks(host).values()]).toEqual([
      { name: 'flannel.4096', type: 'Overlay', subnet: '10.244.1.0/24' },
    ]);
    // The cache as kubemix's run.ps1 wrote it on that node (the lab reads the script: host-local's first address).
    expect(host.fs.read('C:/k/kube-proxy/source-vip.json')?.toString('utf8')).toBe(
      '{"subnet": "10.244.1.0/24", "vip": "10.244.1.2"}',
    );
    expect(host.fs.read('C:/var/lib/cni/networks/flannel.4096/10.244.1.2')?.toString()).toBe(
      'kube-proxy-source-vip\r\nnone',
    );
    expect(host.fs.read('C:/run/flannel/subnet.env')?.toString()).toContain('FLANNEL_SUBNET=10.244.1.1/24');
  });

  it('keeps them when the control plane was reset first: they are on the host, not in the cluster', async () => {
    const host = sim.host('win1');
    await joinWin1();
    // `kubemix down` resets every node at once; the control plane's reset can end before win1's
    // starts, and with the last control plane the cluster goes (ClusterState.resetNode).
    await state.reset('cp1');
    expect((await state.read()).cluster).toBeUndefined();
    expect((await cmd('& C:/k/kubeadm.exe reset -f')).code).toBe(0);
    expect([...hnsNetworks(host).values()]).toEqual([
      { name: 'flannel.4096', type: 'Overlay', subnet: '10.244.1.0/24' },
    ]);
    expect(host.fs.read('C:/run/flannel/subnet.env')?.toString()).toContain('FLANNEL_SUBNET=10.244.1.1/24');
    // Found once: the record is win1's, and its reset consumed it.
    expect((await state.read()).hostFootprints).toBeUndefined();
  });

  it('a new join on the host carries the cached source VIP file into its node record, and run.ps1 replaces it', async () => {
    await joinWin1();
    await cmd('& C:/k/kubeadm.exe reset -f');
    sim.host('win1').fs.remove('C:/k/kubeadm-join.yaml');
    await joinWin1(true);
    const node = (await state.read()).nodes.find((n) => n.name === 'win1')!;
    // (run.ps1's kubeconfig.conf stays there too.)
    expect(node.leftovers).toMatchObject({
      hostFiles: { 'C:\\k\\kube-proxy\\source-vip.json': '{"subnet": "10.244.1.0/24", "vip": "10.244.1.2"}' },
    });
    // Joined third this time (index 2): the cached VIP is outside its 10.244.2.0/24, and kubemix's
    // run.ps1, read by the lab with that file on the node, reserves 10.244.2.2 instead.
    expect(node.index).toBe(2);
    await cmd('& C:/k/kubeadm.exe reset -f');
    expect(sim.host('win1').fs.read('C:/k/kube-proxy/source-vip.json')?.toString('utf8')).toBe(
      '{"subnet": "10.244.2.0/24", "vip": "10.244.2.2"}',
    );
  });
});

describe("cleanup-windows' HNS network removal", () => {
  it('removes only flannel.<vni>, says nothing when it is gone, and tells a host without HNS apart', async () => {
    const host = sim.host('win1');
    const task = await cleanupTask("Remove flannel's HNS network (kubeadm reset leaves it)");
    const noHns = await shell(task);
    expect(noHns).toMatchObject({
      code: 0,
      stdout: 'the HostNetworkingService module is not installed: no HNS network to remove\r\n',
    });
    await joinWin1();
    await cmd('& C:/k/kubeadm.exe reset -f');
    hnsNetworks(host).set('nat', { name: 'nat', type: 'Overlay', subnet: '172.20.0.0/16' });
    const removed = await shell(task);
    expect(removed).toMatchObject({ code: 0, stdout: 'removed HNS network flannel.4096\r\n' });
    expect([...hnsNetworks(host).keys()]).toEqual(['nat']);
    const again = await shell(task);
    expect(again).toMatchObject({ code: 0, stdout: '' });
  });
});
