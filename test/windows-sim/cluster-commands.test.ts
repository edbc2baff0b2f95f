import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ClusterState } from '../../fixtures/lab/cluster-state.js';
import { clusterHostInfo, registerClusterCommands } from '../../fixtures/windows-sim/cluster-commands.js';
import {
  parseJoinConfiguration,
  pinnedScriptUrls,
  simDelayMs,
} from '../../fixtures/windows-sim/cluster-commands-support.js';
import { WindowsSimulator } from '../../fixtures/windows-sim/simulator.js';
import { loadVersions } from '../../src/versions/versions.js';
import { testTempDir } from '../helpers/temp.js';
import { initialisedState } from '../lab/helpers.js';
import { moduleOutcome } from './helpers.js';
import {
  INSTALL_CONTAINERD,
  installContainerd as installContainerdOn,
  PREPARE_NODE,
  prepareHost,
  simDownload,
  simService,
  simShell,
} from './prepare-host.js';

// The simulator's cluster-build commands, driven with the exact scripts kubemix's Windows modules
// send (no network), against a real lab cluster state on disk.
let sim: WindowsSimulator;
let state: ClusterState;
let init: { token: string; caCertHash: string };
let failuresFile: string;

const JOIN = '& C:/k/kubeadm.exe join --config C:/k/kubeadm-join.yaml';
const RESET_IF =
  "if (Test-Path C:/k/kubeadm.exe) { & C:/k/kubeadm.exe reset -f } else { Write-Output 'kubeadm is not installed: nothing to reset' }";

const outcome = moduleOutcome;
const shell = (cmd: string, host = 'win1', extra: Record<string, unknown> = {}) =>
  simShell(sim, cmd, host, extra);
const service = (raw: Record<string, unknown>, host = 'win1') => simService(sim, raw, host);
const download = (url: string, dest: string, host = 'win1') => simDownload(sim, url, dest, host);

function joinConfig(options: { token?: string; v1beta4?: boolean; endpoint?: string } = {}): string {
  const v4 = options.v1beta4 ?? true;
  const args = v4
    ? '  kubeletExtraArgs:\n    - name: windows-priorityclass\n      value: ABOVE_NORMAL_PRIORITY_CLASS\n    - name: system-reserved\n      value: memory=1.5Gi\n'
    : '  kubeletExtraArgs:\n    windows-priorityclass: ABOVE_NORMAL_PRIORITY_CLASS\n    system-reserved: memory=1.5Gi\n';
  return `apiVersion: kubeadm.k8s.io/${v4 ? 'v1beta4' : 'v1beta3'}
kind: JoinConfiguration
discovery:
  bootstrapToken:
    apiServerEndpoint: "${options.endpoint ?? '10.233.1.2:6443'}"
    token: "${options.token ?? init.token}"
    caCertHashes:
      - "${init.caCertHash}"
nodeRegistration:
  name: win1
${args}`;
}

const installContainerd = (host = 'win1') => installContainerdOn(sim, host);
const prepare = (host = 'win1') => prepareHost(sim, host);

beforeEach(async () => {
  ({ state, init } = await initialisedState());
  failuresFile = join(await testTempDir('lab-test'), 'failures.json');
  sim = new WindowsSimulator();
  sim.addHost({ name: 'win1', rebootDownMs: 20 });
  sim.addHost({ name: 'win2019', windowsVersion: '2019', rebootDownMs: 20 });
  sim.host('win1').fs.mkdir('C:/k');
  sim.host('win2019').fs.mkdir('C:/k');
  registerClusterCommands(sim, {
    stateDir: state.dir,
    nodeAddresses: { win1: '10.233.1.200' },
    failures: { 'PrepareNode.ps1@win2019': 1 },
    failuresFile,
  });
});

afterEach(() => sim.dispose());

describe('pinned downloads', () => {
  it('serves only the exact sig-windows-tools URLs of versions.yaml, with a marked stand-in text', async () => {
    const [installContainerd] = pinnedScriptUrls(loadVersions());
    expect(installContainerd!.url).toBe(
      `https://raw.githubusercontent.com/kubernetes-sigs/sig-windows-tools/${loadVersions()['install-containerd-script']}/hostprocess/Install-Containerd.ps1`,
    );
    const got = await download(installContainerd!.url, 'C:/k/Install-Containerd.ps1');
    expect(got).toMatchObject({ failed: false, changed: true });
    const text = sim.host('win1').fs.read('C:/k/Install-Containerd.ps1')!.toString('utf8');
    expect(text).toContain('kubemix lab stand-in');
    expect(text).toContain('NOT the upstream script');
    expect((await download(installContainerd!.url, 'C:/k/Install-Containerd.ps1')).changed).toBe(false);
    const other = await download(
      installContainerd!.url.replace(/\/[0-9a-f]{40}\//, '/master/'),
      'C:/k/Other.ps1',
    );
    expect(other.failed).toBe(true);
    expect(other.msg).toMatch(/not simulated: downloads from hosts other than loopback/);
  });
});

describe('Install-Containerd.ps1', () => {
  it('installs the Containers feature and asks for a reboot first, then installs containerd after it', async () => {
    const host = sim.host('win1');
    await download(pinnedScriptUrls(loadVersions())[0]!.url, 'C:/k/Install-Containerd.ps1');
    const first = await shell(INSTALL_CONTAINERD);
    expect(first.code).toBe(0);
    expect(first.stdout).toContain('Please reboot and re-run this script.');
    expect(host.feature('Containers')?.state).toBe('InstallPending');
    expect(host.service('containerd')).toBeUndefined();
    host.boot();
    const second = await shell(INSTALL_CONTAINERD, 'win1', {
      creates: 'C:/Program Files/containerd/containerd.exe',
    });
    expect(second.code).toBe(0);
    expect(host.fs.isFile('C:/Program Files/containerd/containerd.exe')).toBe(true);
    // containerd 2.x's section and list, as b3efa00 rewrites them (lines 234-263).
    const config = host.fs.read('C:/Program Files/containerd/config.toml')!.toString();
    expect(config).toContain("[plugins.'io.containerd.cri.v1.runtime'.cni]");
    expect(config).toContain("bin_dirs = ['c:/opt/cni/bin']");
    expect(config).toContain("conf_dir = 'c:/etc/cni/net.d'");
    expect(host.fs.isFile('C:/Program Files/containerd/crictl.exe')).toBe(true);
    expect(host.fs.isDirectory('C:/etc/cni/net.d')).toBe(true);
    expect(host.service('containerd')).toMatchObject({ state: 'running', startMode: 'auto' });
    expect(host.processPath()).toContain('C:\\Program Files\\containerd');
    // The playbook's creates guard: a second run does nothing.
    const again = await shell(INSTALL_CONTAINERD, 'win1', {
      creates: 'C:/Program Files/containerd/containerd.exe',
    });
    expect(outcome('win_shell', again).changed).toBe(false);
  });

  it('fails like PowerShell on a missing script or an unknown parameter', async () => {
    const missing = await shell(INSTALL_CONTAINERD);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain("The term 'C:/k/Install-Containerd.ps1' is not recognized");
    await download(pinnedScriptUrls(loadVersions())[0]!.url, 'C:/k/Install-Containerd.ps1');
    const bad = await shell('& C:/k/Install-Containerd.ps1 -ContainerdVersoin 1.7.22');
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain(
      "A parameter cannot be found that matches parameter name 'ContainerdVersoin'.",
    );
  });
});

describe('PrepareNode.ps1', () => {
  it('refuses to run before containerd, then installs kubelet/kubeadm and a stopped kubelet service', async () => {
    const host = sim.host('win1');
    for (const { name, url } of pinnedScriptUrls(loadVersions())) await download(url, `C:/k/${name}`);
    const early = await shell(PREPARE_NODE);
    expect(early.code).toBe(1);
    expect(early.stderr).toContain('ContainerD service was not detected');
    await installContainerd();
    const ran = await shell(PREPARE_NODE);
    expect(ran.code).toBe(0);
    expect(ran.stdout).toContain('Using Kubernetes version: v1.36.4');
    expect(host.fs.isFile('C:/k/kubelet.exe') && host.fs.isFile('C:/k/kubeadm.exe')).toBe(true);
    expect(host.fs.isFile('C:/k/StartKubelet.ps1')).toBe(true);
    expect(host.service('kubelet')).toMatchObject({ state: 'stopped', dependencies: ['containerd'] });
    expect(clusterHostInfo(host)).toMatchObject({ firewallRules: ['kubelet'], hostnameOverride: 'win1' });
    expect(host.processPath()).toContain('C:\\k');
    const mandatory = await shell('& C:/k/PrepareNode.ps1 -HostnameOverride x');
    expect(mandatory.stderr).toContain('missing mandatory parameters: KubernetesVersion');
  });
});

describe('kubeadm.exe join and the kubelet service', () => {
  it("refuses a flag kubeadm does not define with kubeadm's words, before joining anything", async () => {
    await prepare();
    sim.host('win1').fs.write('C:/k/kubeadm-join.yaml', joinConfig());
    const typo = await shell(`${JOIN} --node-nmae win1`);
    expect(typo).toMatchObject({
      code: 1,
      // kubeadm v1.36.4 prints `error: ` before it (KubeadmRelease.errorPrefix; the real v1.37.2
      // says the same words: test/lab/kubeadm-words.integration.test.ts).
      stderr:
        'error: unknown flag: --node-nmae\r\nTo see the stack trace of this error execute with --v=5 or higher\r\n',
    });
    expect((await state.read()).nodes.map((n) => n.name)).toEqual(['cp1']);
    expect(sim.host('win1').fs.exists('C:/etc/kubernetes/kubelet.conf')).toBe(false);
    expect((await shell('& C:/k/kubeadm.exe reset --forc')).stderr).toMatch(
      /^error: unknown flag: --forc\r\n/,
    );
  });

  it('joins through the lab cluster with the JoinConfiguration, writes kubelet files, and links kubelet to the node', async () => {
    const host = sim.host('win1');
    await prepare();
    // Before the join, Windows refuses to start kubelet: it has no kubeconfig.
    const early = await service({ name: 'kubelet', state: 'started' });
    expect(early.failed).toBe(true);
    expect(early.msg).toContain('kubelet.conf is missing');
    host.fs.write('C:/k/kubeadm-join.yaml', joinConfig());
    const joined = await shell(JOIN, 'win1', { creates: 'C:/etc/kubernetes/kubelet.conf' });
    expect(joined.code).toBe(0);
    expect(joined.stdout).toContain('This node has joined the cluster');
    expect(joined.stdout + joined.stderr).not.toContain(init.token);
    const flags = host.fs.read('C:/var/lib/kubelet/kubeadm-flags.env')!.toString();
    // kubeadm writes `%s=%q\n` on Windows too (cmd/kubeadm/app/phases/kubelet/flags.go).
    expect(flags).toBe(
      // kubeadm 1.36 writes no --pod-infra-container-image (kubernetes#133778).
      'KUBELET_KUBEADM_ARGS="--container-runtime-endpoint=npipe:////./pipe/containerd-containerd --hostname-override=win1 --system-reserved=memory=1.5Gi --windows-priorityclass=ABOVE_NORMAL_PRIORITY_CLASS"\n',
    );
    expect(host.fs.read('C:/etc/kubernetes/kubelet.conf')!.toString()).toContain(
      'server: https://10.233.1.2:6443',
    );
    expect(host.fs.isFile('C:/var/lib/kubelet/config.yaml')).toBe(true);
    const node = (await state.read()).nodes.find((n) => n.name === 'win1')!;
    expect(node).toMatchObject({
      os: 'windows',
      kubeletRunning: false,
      address: '10.233.1.200',
      windowsBuild: '10.0.20348',
    });
    expect((await service({ name: 'kubelet', state: 'started', start_mode: 'auto' })).failed).toBe(false);
    expect((await state.read()).nodes.find((n) => n.name === 'win1')?.kubeletRunning).toBe(true);
    expect((await service({ name: 'kubelet', state: 'stopped' })).failed).toBe(false);
    expect((await state.read()).nodes.find((n) => n.name === 'win1')?.kubeletRunning).toBe(false);
    // A second join meets kubeadm's preflight: kubelet.conf exists.
    const twice = await shell(JOIN);
    expect(twice.code).toBe(1);
    expect(twice.stderr).toContain('[ERROR FileAvailable-C:-etc-kubernetes-kubelet.conf]');
  });

  it('refuses a wrong token with kubeadm’s words (exit 1, the secret never repeated), and v1beta3 as kubeadm 1.36 does', async () => {
    await prepare();
    const host = sim.host('win1');
    const wrong = `${init.token.split('.')[0]}.0000000000000000`;
    host.fs.write('C:/k/kubeadm-join.yaml', joinConfig({ token: wrong }));
    const refused = await shell(JOIN);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(
      "failed to verify JWS signature of received cluster info object, can't trust this API Server",
    );
    expect(refused.stderr).not.toContain('0000000000000000');
    expect(host.fs.exists('C:/etc/kubernetes/kubelet.conf')).toBe(false);
    host.fs.write('C:/k/kubeadm-join.yaml', joinConfig({ v1beta4: false }));
    const v1beta3 = await shell(JOIN);
    expect(v1beta3.code).toBe(1);
    expect(v1beta3.stderr).toContain(
      'your configuration file uses an old API spec: "kubeadm.k8s.io/v1beta3" (kind: "JoinConfiguration")',
    );
    host.fs.write('C:/k/kubeadm-join.yaml', joinConfig());
    expect((await shell(JOIN)).code).toBe(0);
    expect(host.fs.read('C:/var/lib/kubelet/kubeadm-flags.env')!.toString()).toContain(
      '--system-reserved=memory=1.5Gi',
    );
  });

  it('fails at kubelet-start when PrepareNode.ps1 passes --pod-infra-container-image to a 1.35+ kubelet (the earlier pin 30b5f0d)', async () => {
    const old = '30b5f0d0b8b5ebb12b678448f1f651892745c9c8';
    const oldSim = new WindowsSimulator();
    oldSim.addHost({ name: 'win1', rebootDownMs: 20 });
    oldSim.host('win1').fs.mkdir('C:/k');
    registerClusterCommands(oldSim, {
      stateDir: state.dir,
      nodeAddresses: { win1: '10.233.1.200' },
      versions: { ...loadVersions(), 'prepare-node-script': old },
    });
    const run = (cmd: string) => simShell(oldSim, cmd);
    try {
      for (const { name, url } of pinnedScriptUrls({ ...loadVersions(), 'prepare-node-script': old }))
        expect((await simDownload(oldSim, url, `C:/k/${name}`)).failed).toBe(false);
      await run(INSTALL_CONTAINERD);
      oldSim.host('win1').boot();
      expect((await run(INSTALL_CONTAINERD)).code).toBe(0);
      expect((await run(PREPARE_NODE)).code).toBe(0);
      oldSim.host('win1').fs.write('C:/k/kubeadm-join.yaml', joinConfig());
      const joined = await run(JOIN);
      expect(joined.code).toBe(1);
      expect(joined.stderr).toContain('error execution phase kubelet-start');
      expect(oldSim.host('win1').fs.read('C:/var/log/kubelet/kubelet.err.log')!.toString()).toContain(
        'failed to parse kubelet flag: unknown flag: --pod-infra-container-image',
      );
      expect(await state.getObject('Node', undefined, 'win1')).toBeUndefined();
    } finally {
      oldSim.dispose();
    }
  });

  it('labels a Server 2019 node with its build', async () => {
    sim.host('win2019').fs.mkdir('C:/k');
    for (const { name, url } of pinnedScriptUrls(loadVersions()))
      await download(url, `C:/k/${name}`, 'win2019');
    await installContainerd('win2019');
    // The options inject one PrepareNode.ps1 failure on this host.
    const injected = await shell(PREPARE_NODE, 'win2019');
    expect(injected.code).toBe(1);
    expect(injected.stderr).toContain(
      'failure injected by the kubemix lab: PrepareNode.ps1@win2019 fails on win2019',
    );
    expect((await shell('& C:/k/PrepareNode.ps1 -KubernetesVersion 1.36.4', 'win2019')).code).toBe(0);
    sim
      .host('win2019')
      .fs.write('C:/k/kubeadm-join.yaml', joinConfig().replace('name: win1', 'name: win2019'));
    expect((await shell(JOIN, 'win2019')).code).toBe(0);
    const node = await state.getObject('Node', undefined, 'win2019');
    expect(node?.metadata.labels?.['node.kubernetes.io/windows-build']).toBe('10.0.17763');
  });
});

describe('kubeadm.exe reset (cleanup-windows)', () => {
  it('removes the node and its kubelet files and stops kubelet; without kubeadm it says so', async () => {
    const skipped = await shell(RESET_IF);
    expect(skipped).toMatchObject({ code: 0, stdout: 'kubeadm is not installed: nothing to reset\r\n' });
    await prepare();
    const host = sim.host('win1');
    host.fs.write('C:/k/kubeadm-join.yaml', joinConfig());
    await shell(JOIN);
    await service({ name: 'kubelet', state: 'started' });
    const noForce = await shell('& C:/k/kubeadm.exe reset');
    expect(noForce.code).toBe(1);
    expect(noForce.stderr).toBe(
      "error: error execution phase preflight: won't proceed; the user didn't answer (Y|y) in order to continue\r\nTo see the stack trace of this error execute with --v=5 or higher\r\n",
    );
    const reset = await shell(RESET_IF);
    expect(reset.code).toBe(0);
    expect(reset.stdout).toContain('[reset] Stopping the kubelet service');
    expect((await state.read()).nodes.map((n) => n.name)).toEqual(['cp1']);
    expect(host.fs.exists('C:/etc/kubernetes/kubelet.conf')).toBe(false);
    expect(host.fs.exists('C:/var/lib/kubelet/kubeadm-flags.env')).toBe(false);
    expect(host.service('kubelet')?.state).toBe('stopped');
  });
});

describe('failure injection and durations', () => {
  it('takes counts from a file another process writes, per command or per host, one failure at a time', async () => {
    await writeFile(failuresFile, JSON.stringify({ 'Install-Containerd.ps1': 2 }));
    await download(pinnedScriptUrls(loadVersions())[0]!.url, 'C:/k/Install-Containerd.ps1');
    sim.host('win1').feature('Containers')!.state = 'Installed';
    for (const left of [1, 0]) {
      const failed = await shell(INSTALL_CONTAINERD);
      expect(failed.code).toBe(1);
      expect(failed.stderr).toContain(
        `Install-Containerd.ps1 : failure injected by the kubemix lab: Install-Containerd.ps1 fails on win1 (${left} more injected failure`,
      );
    }
    expect(JSON.parse(await readFile(failuresFile, 'utf8'))).toEqual({ 'Install-Containerd.ps1': 0 });
    expect((await shell(INSTALL_CONTAINERD)).code).toBe(0);
  });

  it('reads durations like the Linux stand-ins: "tool sub", then "tool", times the scale; the environment wins', () => {
    const options = {
      durations: { 'kubeadm.exe join': 8000, 'PrepareNode.ps1': 30000, reboot: 60000 },
      scale: 0.01,
    };
    expect(simDelayMs(options, 'kubeadm.exe', 'join')).toBe(80);
    expect(simDelayMs(options, 'PrepareNode.ps1')).toBe(300);
    expect(simDelayMs({ ...options, scale: 0 }, 'reboot')).toBe(0);
    expect(simDelayMs({}, 'reboot')).toBe(0);
    process.env['KUBEMIX_STANDIN_SCALE'] = '0.5';
    try {
      expect(simDelayMs(options, 'reboot')).toBe(30000);
    } finally {
      delete process.env['KUBEMIX_STANDIN_SCALE'];
    }
  });

  it('makes registered reboot durations the hosts’ down time', () => {
    const other = new WindowsSimulator();
    other.addHost({ name: 'w', rebootDownMs: 1500 });
    registerClusterCommands(other, { stateDir: state.dir, durations: { reboot: 40000 }, scale: 0.01 });
    expect(other.host('w').controls.rebootDownMs).toBe(400);
    other.dispose();
  });
});

describe('JoinConfiguration', () => {
  it('is refused in the form the other API version uses, naming the file', () => {
    const v4 = joinConfig();
    expect(() =>
      parseJoinConfiguration(v4.replace('v1beta4', 'v1beta3'), 'C:/k/kubeadm-join.yaml', 'v1.35.9'),
    ).toThrow(
      /kubeadm-join.yaml.*cannot unmarshal array into Go struct field NodeRegistrationOptions.nodeRegistration.kubeletExtraArgs/,
    );
    expect(() => parseJoinConfiguration('kind: InitConfiguration\n', 'x.yaml', 'v1.35.9')).toThrow(
      /no JoinConfiguration in "x.yaml"/,
    );
  });

  it('is refused in v1beta3 by kubeadm 1.36, which removed that API (kubernetes#136016), and read by 1.35', () => {
    const v3 = joinConfig({ v1beta4: false });
    expect(parseJoinConfiguration(v3, 'C:/k/kubeadm-join.yaml', 'v1.35.9').apiServerEndpoint).not.toBe('');
    expect(() => parseJoinConfiguration(v3, 'C:/k/kubeadm-join.yaml', 'v1.36.4')).toThrow(
      'your configuration file uses an old API spec: "kubeadm.k8s.io/v1beta3" (kind: "JoinConfiguration")',
    );
  });
});
