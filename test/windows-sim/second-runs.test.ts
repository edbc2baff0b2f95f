import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ClusterState } from '../../fixtures/lab/cluster-state.js';
import { clusterHostInfo, registerClusterCommands } from '../../fixtures/windows-sim/cluster-commands.js';
import { pinnedScriptUrls } from '../../fixtures/windows-sim/cluster-commands-support.js';
import { WindowsSimulator } from '../../fixtures/windows-sim/simulator.js';
import { commandAction } from '../../src/modules/windows/command-common.js';
import { outcomeFromResult } from '../../src/modules/windows/script.js';
import { winGetUrlModule, winGetUrlScript } from '../../src/modules/windows/win-get-url.js';
import { winServiceModule, winServiceScript } from '../../src/modules/windows/win-service.js';
import { winShellBody, winShellModule } from '../../src/modules/windows/win-shell.js';
import { loadVersions } from '../../src/versions/versions.js';
import { DEFAULT_KUBERNETES } from '../helpers/kubernetes-test-versions.js';
import { testTempDir } from '../helpers/temp.js';
import { initialisedState } from '../lab/helpers.js';
import { type Ran, runScript } from './helpers.js';

// The sig-windows-tools scripts run a second time on a simulated host, as the simulator models the
// pinned revisions (fixtures/windows-sim/prepare-node-script.ts, install-containerd-script.ts cite
// the lines), the node programs' own --version, and what prepare-windows removes before a re-run
// (prepare-node-leftovers.ts).
let sim: WindowsSimulator;
let state: ClusterState;
let init: { token: string; caCertHash: string };
let failuresFile: string;
const CONTAINERD = loadVersions()['containerd']!;
const K8S = `v${DEFAULT_KUBERNETES}`;
const installContainerd = (version: string) =>
  `& C:/k/Install-Containerd.ps1 -ContainerDVersion ${version} -skipHypervisorSupportCheck -CNIBinPath 'c:/opt/cni/bin' -CNIConfigPath 'c:/etc/cni/net.d'`;
const PREPARE_NODE = `& C:/k/PrepareNode.ps1 -KubernetesVersion ${K8S} -HostnameOverride win1`;

function shell(cmd: string): Promise<Ran> {
  const args = winShellModule.parseArgs({ cmd });
  return runScript(sim, 'win1', commandAction('win_shell', args, winShellBody(args)).command);
}
const service = (raw: Record<string, unknown>) =>
  runScript(sim, 'win1', winServiceScript(winServiceModule.parseArgs(raw), false)).then((r) =>
    outcomeFromResult('win_service', {
      command: 'win_service',
      exitCode: r.code,
      stdout: r.stdout,
      stderr: r.stderr,
      durationMs: 1,
      failed: r.code !== 0,
      timedOut: false,
    }),
  );

/** PrepareNode.ps1's next nssm download fails (the lab's failure injection). */
const failNssmDownload = () => writeFile(failuresFile, JSON.stringify({ 'download nssm-2.24.zip@win1': 1 }));

/** The scripts downloaded and containerd `version` installed, as prepare-windows does on a fresh host. */
async function withContainerd(version = CONTAINERD): Promise<void> {
  for (const { name, url } of pinnedScriptUrls(loadVersions()))
    await runScript(
      sim,
      'win1',
      winGetUrlScript(winGetUrlModule.parseArgs({ url, dest: `C:/k/${name}` }), false),
    );
  await shell(installContainerd(version));
  sim.host('win1').boot();
  expect((await shell(installContainerd(version))).code).toBe(0);
}

/** win1 prepared and joined, its kubelet running. */
async function joined(): Promise<void> {
  await withContainerd();
  expect((await shell(PREPARE_NODE)).code).toBe(0);
  sim
    .host('win1')
    .fs.write(
      'C:/k/kubeadm-join.yaml',
      `apiVersion: kubeadm.k8s.io/v1beta4\nkind: JoinConfiguration\ndiscovery:\n  bootstrapToken:\n    apiServerEndpoint: "10.233.1.2:6443"\n    token: "${init.token}"\n    caCertHashes:\n      - "${init.caCertHash}"\nnodeRegistration:\n  name: win1\n`,
    );
  expect((await shell('& C:/k/kubeadm.exe join --config C:/k/kubeadm-join.yaml')).code).toBe(0);
  expect((await service({ name: 'kubelet', state: 'started' })).failed).toBe(false);
}

beforeEach(async () => {
  ({ state, init } = await initialisedState());
  sim = new WindowsSimulator();
  sim.addHost({ name: 'win1', rebootDownMs: 20 });
  sim.host('win1').fs.mkdir('C:/k');
  failuresFile = join(await testTempDir('second-runs'), 'failures.json');
  registerClusterCommands(sim, { stateDir: state.dir, failuresFile });
});

afterEach(() => sim.dispose());

describe('the node programs report their own release', () => {
  it('containerd.exe --version, kubelet.exe --version, kubeadm.exe version -o short', async () => {
    await withContainerd();
    // `containerd <package> v<tag> <the tag's commit>`.
    const containerd = await shell("& 'C:/Program Files/containerd/containerd.exe' --version");
    expect(containerd.code).toBe(0);
    expect(containerd.stdout).toMatch(
      new RegExp(
        `^containerd github\\.com/containerd/containerd/v2 v${CONTAINERD.replaceAll('.', '\\.')} [0-9a-f]{40}\r\n$`,
      ),
    );
    const missing = await shell('& C:/k/kubelet.exe --version');
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain("The term 'C:/k/kubelet.exe' is not recognized");
    await failNssmDownload();
    await shell(PREPARE_NODE); // stops at the nssm download: the programs are there
    expect((await shell('& C:/k/kubelet.exe --version')).stdout).toBe(`Kubernetes ${K8S}\r\n`);
    expect((await shell('& C:/k/kubeadm.exe version -o short')).stdout).toBe(`${K8S}\r\n`);
  });
});

describe('PrepareNode.ps1 run again', () => {
  it('after a failed nssm download: the programs and the link are there, no service, no rule', async () => {
    await withContainerd();
    await failNssmDownload();
    const broken = await shell(PREPARE_NODE);
    expect(broken.code).toBe(1);
    expect(broken.stderr).toContain(
      'Download https://k8stestinfrabinaries.blob.core.windows.net/nssm-mirror/nssm-2.24.zip failed',
    );
    const host = sim.host('win1');
    expect(host.fs.linkTarget('C:/var/lib/kubelet/etc/kubernetes/pki')).toBe('C:\\etc\\kubernetes\\pki');
    expect(host.service('kubelet')).toBeUndefined();
    expect(clusterHostInfo(host).firewallRules).toEqual([]);
    // Run again as it is: its own link stops it (line 68, New-Item without -Force).
    const again = await shell(PREPARE_NODE);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain(
      'New-Item : An item with the specified name C:\\var\\lib\\kubelet\\etc\\kubernetes\\pki already exists.',
    );
    // What prepare-windows removes first: the link (not its target), then the run completes.
    const link = await shell(
      "if (Test-Path -LiteralPath 'C:/var/lib/kubelet/etc/kubernetes/pki') { (Get-Item -LiteralPath 'C:/var/lib/kubelet/etc/kubernetes/pki').Delete(); Write-Output 'removed' }",
    );
    expect(link).toMatchObject({ code: 0, stdout: 'removed\r\n' });
    expect(host.fs.isDirectory('C:/etc/kubernetes/pki')).toBe(true);
    expect((await shell(PREPARE_NODE)).code).toBe(0);
    expect(host.service('kubelet')).toMatchObject({ state: 'stopped', dependencies: ['containerd'] });
    expect(clusterHostInfo(host).firewallRules).toEqual(['kubelet']);
  });

  it('on a joined node: the running kubelet, then the service and the firewall rule stop it', async () => {
    await joined();
    const running = await shell(PREPARE_NODE);
    expect(running.code).toBe(1);
    expect(running.stderr).toContain(
      `Download https://dl.k8s.io/${K8S}/bin/windows/amd64/kubelet.exe failed`,
    );
    // kubeadm reset stops the kubelet and empties C:\var\lib\kubelet (the link with it).
    expect((await shell('& C:/k/kubeadm.exe reset -f')).code).toBe(0);
    expect(sim.host('win1').fs.exists('C:/var/lib/kubelet/etc/kubernetes/pki')).toBe(false);
    const serviceThere = await shell(PREPARE_NODE);
    expect(serviceThere.code).toBe(1);
    expect(serviceThere.stderr).toContain('not simulated: PrepareNode.ps1 line 114');
    // Without the service, the firewall rule is what it trips over (line 128).
    expect((await service({ name: 'kubelet', state: 'absent' })).failed).toBe(false);
    await shell(
      "if (Test-Path -LiteralPath 'C:/var/lib/kubelet/etc/kubernetes/pki') { (Get-Item -LiteralPath 'C:/var/lib/kubelet/etc/kubernetes/pki').Delete(); Write-Output 'removed' }",
    );
    const rule = await shell(PREPARE_NODE);
    expect(rule.code).toBe(1);
    expect(rule.stderr).toContain(
      'New-NetFirewallRule : Cannot create a file when that file already exists.',
    );
    expect((await shell("Get-NetFirewallRule -Name 'kubelet'")).code).toBe(0);
    expect((await shell("Remove-NetFirewallRule -Name 'kubelet'")).code).toBe(0);
    const gone = await shell("Get-NetFirewallRule -Name 'kubelet'");
    expect(gone.code).toBe(1);
    expect(gone.stderr).toContain(
      "No MSFT_NetFirewallRule objects found with property 'Name' equal to 'kubelet'.",
    );
    await service({ name: 'kubelet', state: 'absent' });
    await shell(
      "if (Test-Path -LiteralPath 'C:/var/lib/kubelet/etc/kubernetes/pki') { (Get-Item -LiteralPath 'C:/var/lib/kubelet/etc/kubernetes/pki').Delete(); Write-Output 'removed' }",
    );
    expect((await shell(PREPARE_NODE)).code).toBe(0);
  });
});

describe('Install-Containerd.ps1 run again', () => {
  it('over a running containerd: exit 0, the old containerd.exe stays and keeps running', async () => {
    await withContainerd('2.3.3');
    const again = await shell(installContainerd(CONTAINERD));
    expect(again.code).toBe(0);
    expect(again.stdout).toContain('Done - please remember');
    expect(again.stderr).toContain(
      "tar.exe: containerd.exe: Can't unlink already-existing object: Permission denied",
    );
    expect(again.stderr).toContain('level=fatal msg="The specified service already exists."');
    expect((await shell("& 'C:/Program Files/containerd/containerd.exe' --version")).stdout).toMatch(
      / v2\.3\.3 /,
    );
    expect(clusterHostInfo(sim.host('win1')).containerdVersion).toBe('2.3.3');
  });

  it('after its service was removed (stopped with -Force, the kubelet with it): a fresh install of the release asked for', async () => {
    await withContainerd('2.3.3');
    expect((await shell(PREPARE_NODE)).code).toBe(0);
    sim.host('win1').service('kubelet')!.state = 'running';
    expect((await service({ name: 'containerd', state: 'absent' })).failed).toBe(false);
    expect(sim.host('win1').service('kubelet')?.state).toBe('stopped');
    expect((await shell(installContainerd(CONTAINERD))).code).toBe(0);
    expect((await shell("& 'C:/Program Files/containerd/containerd.exe' --version")).stdout).toContain(
      ` v${CONTAINERD} `,
    );
    expect(sim.host('win1').service('containerd')?.state).toBe('running');
    expect(clusterHostInfo(sim.host('win1')).containerdVersion).toBe(CONTAINERD);
  });
});
