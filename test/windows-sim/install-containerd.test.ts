import { rm } from 'node:fs/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { registerClusterCommands } from '../../fixtures/windows-sim/cluster-commands.js';
import { offlineHostInfo } from '../../fixtures/windows-sim/cluster-commands-offline.js';
import { pinnedScriptUrls } from '../../fixtures/windows-sim/cluster-commands-support.js';
import { dismCalls, optionalFeatureState } from '../../fixtures/windows-sim/optional-features.js';
import { WindowsSimulator } from '../../fixtures/windows-sim/simulator.js';
import { commandAction } from '../../src/modules/windows/command-common.js';
import { winGetUrlModule, winGetUrlScript } from '../../src/modules/windows/win-get-url.js';
import { winShellBody, winShellModule } from '../../src/modules/windows/win-shell.js';
import { loadVersions } from '../../src/versions/versions.js';
import { testTempDir } from '../helpers/temp.js';
import { type Ran, runScript } from './helpers.js';

// The control flow of sig-windows-tools hostprocess/Install-Containerd.ps1 at the pinned commit
// (b3efa00, lines 169-221; the same lines as 3c8dbbc's 58-110) as the simulator plays it, driven with the exact win_shell scripts
// prepare-windows.yml sends: features first, a reboot and a re-run, then containerd.
let sim: WindowsSimulator;
let stateDir: string;

const WITH_SWITCH =
  "& C:/k/Install-Containerd.ps1 -ContainerDVersion 2.3.4 -crictlVersion 1.36.0 -skipHypervisorSupportCheck -CNIBinPath 'c:/opt/cni/bin' -CNIConfigPath 'c:/etc/cni/net.d'";
const WITHOUT_SWITCH =
  "& C:/k/Install-Containerd.ps1 -ContainerDVersion 2.3.4 -crictlVersion 1.36.0 -CNIBinPath 'c:/opt/cni/bin' -CNIConfigPath 'c:/etc/cni/net.d'";
const REBOOT_ASKED = 'Please reboot and re-run this script.';
const CONTAINERD_URL =
  'curl.exe https://github.com/containerd/containerd/releases/download/v2.3.4/containerd-2.3.4-windows-amd64.tar.gz';
const CRICTL_URL =
  'curl.exe https://github.com/kubernetes-sigs/cri-tools/releases/download/v1.36.0/crictl-v1.36.0-windows-amd64.tar.gz';

/** The script's own downloads (DownloadFile: curl.exe), not win_get_url's. */
const scriptDownloads = () =>
  offlineHostInfo(sim.host('win1')).network.filter((n) => n.startsWith('curl.exe '));

function shell(cmd: string): Promise<Ran> {
  const args = winShellModule.parseArgs({ cmd });
  return runScript(sim, 'win1', commandAction('win_shell', args, winShellBody(args)).command);
}

beforeEach(async () => {
  stateDir = await testTempDir('install-containerd');
  sim = new WindowsSimulator();
  sim.addHost({ name: 'win1', rebootDownMs: 20 });
  sim.host('win1').fs.mkdir('C:/k');
  registerClusterCommands(sim, { stateDir });
  const url = pinnedScriptUrls(loadVersions())[0]!.url;
  const args = winGetUrlModule.parseArgs({ url, dest: 'C:/k/Install-Containerd.ps1' });
  expect((await runScript(sim, 'win1', winGetUrlScript(args, false))).code).toBe(0);
});

afterEach(async () => {
  sim.dispose();
  await rm(stateDir, { recursive: true, force: true });
});

describe('Install-Containerd.ps1 with -skipHypervisorSupportCheck', () => {
  it('installs Containers, enables Microsoft-Hyper-V and disables Microsoft-Hyper-V-Online, then exits 0 before the download', async () => {
    const host = sim.host('win1');
    const first = await shell(WITH_SWITCH);
    expect(first.code).toBe(0);
    expect(first.stdout).toContain(
      "WARNING: Windows feature 'Containers' is not installed. Installing it now...",
    );
    expect(first.stdout).toContain(
      "WARNING: Windows optional feature 'Microsoft-Hyper-V' is not enabled. Enabling it now...",
    );
    expect(first.stdout).toContain(
      "WARNING: Windows optional feature 'Microsoft-Hyper-V-Online' is not disabled. Disabling it now...",
    );
    expect(first.stdout.trimEnd().endsWith(REBOOT_ASKED)).toBe(true);
    expect(dismCalls(host)).toEqual([
      '/Enable-Feature /FeatureName:Microsoft-Hyper-V /All',
      '/Disable-Feature /FeatureName:Microsoft-Hyper-V-Online',
    ]);
    expect(host.feature('Containers')?.state).toBe('InstallPending');
    expect(optionalFeatureState(host, 'Microsoft-Hyper-V')).toBe('Enable Pending');
    // Line 109: exit 0 before line 115's download, so no containerd at all.
    expect(scriptDownloads()).toEqual([]);
    expect(host.fs.exists('C:/Program Files/containerd/containerd.exe')).toBe(false);
    expect(host.service('containerd')).toBeUndefined();
  });

  it('asks again when re-run without a reboot (pending is not Enabled), and installs containerd after one', async () => {
    const host = sim.host('win1');
    await shell(WITH_SWITCH);
    const again = await shell(WITH_SWITCH);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain(REBOOT_ASKED);
    expect(host.service('containerd')).toBeUndefined();

    host.boot();
    expect(host.feature('Containers')?.state).toBe('Installed');
    expect(optionalFeatureState(host, 'Microsoft-Hyper-V')).toBe('Enabled');
    expect(optionalFeatureState(host, 'Microsoft-Hyper-V-Online')).toBe('Disabled');
    const rerun = await shell(WITH_SWITCH);
    expect(rerun.code).toBe(0);
    expect(rerun.stdout).toContain("Windows feature 'Containers' is already installed.");
    expect(rerun.stdout).toContain("Windows optional feature 'Microsoft-Hyper-V' is already enabled.");
    expect(rerun.stdout).toContain(
      "Windows optional feature 'Microsoft-Hyper-V-Online' is already disabled.",
    );
    expect(rerun.stdout).not.toContain(REBOOT_ASKED);
    expect(scriptDownloads()).toEqual([CONTAINERD_URL, CRICTL_URL]);
    expect(host.fs.isFile('C:/Program Files/containerd/containerd.exe')).toBe(true);
    expect(host.service('containerd')).toMatchObject({ state: 'running', startMode: 'auto' });
  });

  it('asks for a reboot when only the DISM part is left (Containers installed beforehand)', async () => {
    const host = sim.host('win1');
    host.feature('Containers')!.state = 'Installed';
    const run = await shell(WITH_SWITCH);
    expect(run.stdout).toContain("Windows feature 'Containers' is already installed.");
    expect(run.stdout).toContain(REBOOT_ASKED);
    expect(host.service('containerd')).toBeUndefined();
  });
});

describe('Install-Containerd.ps1 without -skipHypervisorSupportCheck (hyperV: true)', () => {
  it('installs Containers, Hyper-V and Hyper-V-PowerShell, never touches DISM, and keeps the hypervisor', async () => {
    const host = sim.host('win1');
    const first = await shell(WITHOUT_SWITCH);
    expect(first.code).toBe(0);
    for (const feature of ['Containers', 'Hyper-V', 'Hyper-V-PowerShell'])
      expect(first.stdout).toContain(
        `WARNING: Windows feature '${feature}' is not installed. Installing it now...`,
      );
    expect(first.stdout).not.toContain('Microsoft-Hyper-V');
    expect(first.stdout.trimEnd().endsWith(REBOOT_ASKED)).toBe(true);
    expect(host.service('containerd')).toBeUndefined();

    host.boot();
    const rerun = await shell(WITHOUT_SWITCH);
    expect(rerun.stdout).not.toContain(REBOOT_ASKED);
    expect(host.service('containerd')).toMatchObject({ state: 'running' });
    for (const feature of ['Containers', 'Hyper-V', 'Hyper-V-PowerShell'])
      expect(host.feature(feature)?.state).toBe('Installed');
    expect(dismCalls(host)).toEqual([]);
    expect(optionalFeatureState(host, 'Microsoft-Hyper-V')).toBe('Enabled');
    expect(optionalFeatureState(host, 'Microsoft-Hyper-V-Online')).toBe('Enabled');
  });

  it('stops with Install-WindowsFeature’s error when it fails ($ErrorActionPreference = Stop)', async () => {
    sim.dispose();
    sim = new WindowsSimulator();
    sim.addHost({ name: 'win1', rebootDownMs: 20 });
    sim.host('win1').fs.mkdir('C:/k');
    registerClusterCommands(sim, { stateDir, failures: { 'Install-WindowsFeature': 1 } });
    const url = pinnedScriptUrls(loadVersions())[0]!.url;
    const args = winGetUrlModule.parseArgs({ url, dest: 'C:/k/Install-Containerd.ps1' });
    expect((await runScript(sim, 'win1', winGetUrlScript(args, false))).code).toBe(0);
    const failed = await shell(WITHOUT_SWITCH);
    expect(failed.code).toBe(1);
    expect(failed.stderr).toContain(
      'Install-WindowsFeature : failure injected by the kubemix lab: Install-WindowsFeature fails on win1',
    );
    expect(failed.stdout).not.toContain(REBOOT_ASKED);
  });
});
