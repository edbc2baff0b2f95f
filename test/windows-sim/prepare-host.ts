import { expect } from 'vitest';
import { pinnedScriptUrls } from '../../fixtures/windows-sim/cluster-commands-support.js';
import type { WindowsSimulator } from '../../fixtures/windows-sim/simulator.js';
import { commandAction } from '../../src/modules/windows/command-common.js';
import { winGetUrlModule, winGetUrlScript } from '../../src/modules/windows/win-get-url.js';
import { winServiceModule, winServiceScript } from '../../src/modules/windows/win-service.js';
import { winShellBody, winShellModule } from '../../src/modules/windows/win-shell.js';
import { loadVersions } from '../../src/versions/versions.js';
import { moduleOutcome, type Ran, runScript } from './helpers.js';

// The Windows modules' exact scripts, run on a simulated host with its cluster commands (no
// network), as prepare-windows runs them.

export const INSTALL_CONTAINERD =
  "& C:/k/Install-Containerd.ps1 -ContainerDVersion 2.3.4 -crictlVersion 1.36.0 -skipHypervisorSupportCheck -CNIBinPath 'c:/opt/cni/bin' -CNIConfigPath 'c:/etc/cni/net.d'";
export const PREPARE_NODE = '& C:/k/PrepareNode.ps1 -KubernetesVersion v1.36.4 -HostnameOverride win1';

/** win_shell as the playbooks call it (header, creates guard, the command). */
export function simShell(
  sim: WindowsSimulator,
  cmd: string,
  host = 'win1',
  extra: Record<string, unknown> = {},
): Promise<Ran> {
  const args = winShellModule.parseArgs({ cmd, ...extra });
  return runScript(sim, host, commandAction('win_shell', args, winShellBody(args)).command);
}

/** win_service as the playbooks call it. */
export const simService = (sim: WindowsSimulator, raw: Record<string, unknown>, host = 'win1') =>
  runScript(sim, host, winServiceScript(winServiceModule.parseArgs(raw), false)).then((r) =>
    moduleOutcome('win_service', r),
  );

/** win_get_url as the playbooks call it. */
export const simDownload = (sim: WindowsSimulator, url: string, dest: string, host = 'win1') =>
  runScript(sim, host, winGetUrlScript(winGetUrlModule.parseArgs({ url, dest }), false)).then((r) =>
    moduleOutcome('win_get_url', r),
  );

/** Install-Containerd.ps1 as prepare-windows runs it: once, a reboot when asked, once more. */
export async function installContainerd(sim: WindowsSimulator, host = 'win1'): Promise<void> {
  expect((await simShell(sim, INSTALL_CONTAINERD, host)).stdout).toContain(
    'Please reboot and re-run this script.',
  );
  sim.host(host).boot();
  expect((await simShell(sim, INSTALL_CONTAINERD, host)).code).toBe(0);
  expect(sim.host(host).service('containerd')?.state).toBe('running');
}

/** Everything prepare-windows does before the join, the way the playbook does it. */
export async function prepareHost(sim: WindowsSimulator, host = 'win1'): Promise<void> {
  for (const { name, url } of pinnedScriptUrls(loadVersions()))
    expect((await simDownload(sim, url, `C:/k/${name}`, host)).failed).toBe(false);
  await installContainerd(sim, host);
  expect((await simShell(sim, PREPARE_NODE, host)).code).toBe(0);
}
