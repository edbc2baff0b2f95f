import { readdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { writeLabSpec } from '../../fixtures/cluster-lab/lab-spec.js';
import { type MixedClusterLab, startMixedClusterLab } from '../../fixtures/cluster-lab/mixed-lab.js';
import { dismCalls, optionalFeatureState } from '../../fixtures/windows-sim/optional-features.js';
import { loadVersions } from '../../src/versions/versions.js';
import { kubemix, tempClusterDir } from './helpers.js';

const CONTAINERD = loadVersions()['containerd'];
const CRICTL = loadVersions()['crictl'];

// `kubemix up` on FRESH simulated Windows hosts: prepare-windows must end with containerd
// installed and running. The pinned Install-Containerd.ps1 (sig-windows-tools 3c8dbbc, lines
// 58-110) installs the Windows features itself and, when it changed any, prints "Please reboot and
// re-run this script." and exits 0 before it downloads containerd; the simulator plays that.
let lab: MixedClusterLab;
const dirs: string[] = [];
let current: { spec: string; clusterDir: string } | undefined;

beforeAll(async () => {
  lab = await startMixedClusterLab({ controllers: 1, linuxWorkers: 0, windowsWorkers: 3, rebootDownMs: 300 });
});

afterEach(async () => {
  if (current && (await lab.linux.cluster.cluster()))
    await kubemix(['down', current.spec, '--cluster-dir', current.clusterDir]);
  current = undefined;
});

afterAll(async () => {
  await lab?.stop();
  await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
});

async function up(windowsHost: string, options: { hyperV?: boolean } = {}) {
  const dir = await tempClusterDir();
  dirs.push(dir);
  const spec = await writeLabSpec(dir, {
    name: `containerd-${windowsHost}`,
    linuxHosts: lab.linux.hosts.slice(0, 1),
    controllers: 1,
    windowsHosts: lab.windows.hosts.filter((h) => h.name === windowsHost),
    knownHostsPath: lab.linux.knownHostsPath,
    privateKeyPath: lab.linux.privateKeyPath,
    ...(options.hyperV ? { windowsHyperV: true } : {}),
  });
  const clusterDir = join(dir, 'cluster');
  current = { spec, clusterDir };
  const run = await kubemix([
    'up',
    spec,
    '--cluster-dir',
    clusterDir,
    '--stop-after',
    'join-windows-workers',
  ]);
  const runs = await readdir(join(clusterDir, 'runs'));
  const log = await readFile(join(clusterDir, 'runs', runs.sort().at(-1)!), 'utf8');
  return { run, log };
}

/** The commands the run's event log shows for the Install-Containerd.ps1 steps that ran. */
function installCommands(log: string): string[] {
  return log
    .trim()
    .split('\n')
    .map(
      (line) =>
        JSON.parse(line) as { type: string; step?: string; status?: string; result?: { command: string } },
    )
    .filter(
      (e) => e.type === 'step-end' && e.step?.startsWith('Install containerd') && e.status !== 'skipped',
    )
    .map((e) => e.result!.command);
}

describe('prepare-windows on a fresh Windows host', () => {
  it('reboots once when Install-Containerd.ps1 asks, runs it again, and ends with containerd installed and running', async () => {
    const host = lab.windows.host('win-01');
    const { run, log } = await up('win-01');
    expect(run.stderr).toBe('');
    expect(run.exitCode).toBe(0);
    // Spliced through ansible.windows.quote(shell='powershell'): always a single-quoted literal.
    const command = `& C:/k/Install-Containerd.ps1 -ContainerDVersion '${CONTAINERD}' -crictlVersion '${CRICTL}' -skipHypervisorSupportCheck -CNIBinPath 'c:/opt/cni/bin' -CNIConfigPath 'c:/etc/cni/net.d'`;
    // The first run asked for a reboot, the second installed containerd.
    expect(installCommands(log)).toEqual([command, command]);
    expect(run.stdout).toContain(
      'CHANGED prepare-windows win-01: Reboot to finish the Windows features Install-Containerd.ps1 changed',
    );
    expect(host.bootCount).toBe(2);
    expect(host.fs.isFile('C:/Program Files/containerd/containerd.exe')).toBe(true);
    expect(host.service('containerd')).toMatchObject({ state: 'running', startMode: 'auto' });
    // The default group passes -skipHypervisorSupportCheck: DISM enabled Hyper-V and disabled the hypervisor.
    expect(host.feature('Containers')?.state).toBe('Installed');
    expect(dismCalls(host)).toEqual([
      '/Enable-Feature /FeatureName:Microsoft-Hyper-V /All',
      '/Disable-Feature /FeatureName:Microsoft-Hyper-V-Online',
    ]);
    expect(optionalFeatureState(host, 'Microsoft-Hyper-V-Online')).toBe('Disabled');
    expect((await lab.linux.cluster.nodes()).map((n) => n.metadata.name)).toContain('win-01');
  });

  it('with hyperV: true installs Hyper-V through the script and never disables Microsoft-Hyper-V-Online', async () => {
    const host = lab.windows.host('win-02');
    const { run, log } = await up('win-02', { hyperV: true });
    expect(run.stderr).toBe('');
    expect(run.exitCode).toBe(0);
    const command = `& C:/k/Install-Containerd.ps1 -ContainerDVersion '${CONTAINERD}' -crictlVersion '${CRICTL}' -CNIBinPath 'c:/opt/cni/bin' -CNIConfigPath 'c:/etc/cni/net.d'`;
    expect(installCommands(log)).toEqual([command, command]);
    expect(host.bootCount).toBe(2);
    expect(host.service('containerd')?.state).toBe('running');
    for (const feature of ['Containers', 'Hyper-V', 'Hyper-V-PowerShell'])
      expect(host.feature(feature)?.state, feature).toBe('Installed');
    expect(dismCalls(host)).toEqual([]);
    expect(optionalFeatureState(host, 'Microsoft-Hyper-V-Online')).toBe('Enabled');
  });

  it('stops with a clear message when the script still asks for a reboot after one reboot and a re-run', async () => {
    const host = lab.windows.host('win-03');
    // A host where the features never settle (fault injection: this host's script always asks).
    const remove = lab.windows.simulator.registerCommand(
      /^& C:\/k\/Install-Containerd\.ps1 .*$/,
      ({ stdout }) => {
        stdout('Please reboot and re-run this script.\r\n');
        return 0;
      },
      'test: Install-Containerd.ps1 that always asks for a reboot',
    );
    try {
      const { run } = await up('win-03');
      expect(run.exitCode).toBe(1);
      expect(run.stderr).toContain(
        'FAILED prepare-windows on win-03: Install-Containerd.ps1 is done asking for reboots',
      );
      expect(run.stderr).toContain(
        'Install-Containerd.ps1 still asks for a reboot after one reboot and a re-run, so containerd is not installed',
      );
      expect(host.bootCount).toBe(2);
    } finally {
      remove();
    }
  });
});
