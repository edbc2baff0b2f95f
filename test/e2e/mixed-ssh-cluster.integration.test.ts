import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { type MixedClusterLab, startMixedClusterLab } from '../../fixtures/cluster-lab/mixed-lab.js';
import { kubemix, tempClusterDir } from './helpers.js';

// `kubemix up` end to end with both ways of reaching a Windows node: one simulated Windows host
// over WinRM (NTLM + encryption) and one over OpenSSH with PowerShell as its shell (a real sshd
// whose sessions reach the simulator), both joining the same lab cluster as a Linux controller.
let lab: MixedClusterLab;
let clusterDir: string;
let upDone = false;

beforeAll(async () => {
  lab = await startMixedClusterLab({
    controllers: 1,
    linuxWorkers: 0,
    windowsWorkers: 1,
    windowsSshWorkers: 1,
    rebootDownMs: 300,
    scale: 0,
    name: 'mixed-ssh',
  });
  clusterDir = join(await tempClusterDir(), 'cluster');
});

afterAll(async () => {
  // A failed assertion must not leave the cluster half built on the shared lab.
  if (upDone && lab && (await lab.linux.cluster.cluster()))
    await kubemix(['down', lab.specPath, '--cluster-dir', clusterDir]);
  await lab?.stop();
});

const ready = (n: { status?: { conditions?: { type: string; status: string }[] } }) =>
  n.status?.conditions?.find((c) => c.type === 'Ready')?.status;

/** Tasks a run finished (`DONE  name` lines). */
const doneIn = (stdout: string) => [...stdout.matchAll(/^DONE {2}(\S+)/gm)].map((m) => m[1]!);

const CHECKS = ['node-to-pod', 'pod-to-pod', 'service-vip', 'service-dns', 'nodeport', 'outbound'];

describe('a mixed cluster with a Windows node over WinRM and one over SSH (PowerShell shell)', () => {
  it('writes a spec with a second Windows group over ssh and one known_hosts for every SSH host', async () => {
    const spec = parse(await readFile(lab.specPath, 'utf8')) as {
      provider: {
        knownHosts: string;
        hosts: { name: string; group: string; connection?: string; address: string; port: number }[];
      };
      nodes: {
        workers: { name: string; os: string; connection: string; credentials: Record<string, unknown> }[];
      };
    };
    expect(spec.provider.hosts.map((h) => [h.name, h.group, h.connection])).toEqual([
      ['lab-01', 'control-plane', undefined],
      ['win-01', 'windows', 'winrm'],
      ['win-ssh-01', 'windows-ssh', 'ssh'],
    ]);
    const sshGroup = spec.nodes.workers.find((g) => g.name === 'windows-ssh')!;
    expect([sshGroup.os, sshGroup.connection]).toEqual(['windows', 'ssh']);
    expect(sshGroup.credentials).toEqual({
      user: 'root',
      privateKey: { file: join(lab.dir, 'windows-ssh', 'id_ed25519') },
    });
    // Strict host-key checking against one file: the Linux controller's key and the Windows SSH host's.
    expect(spec.provider.knownHosts).toBe(lab.knownHostsPath);
    const knownHosts = await readFile(lab.knownHostsPath, 'utf8');
    const win = spec.provider.hosts.find((h) => h.name === 'win-ssh-01')!;
    expect(knownHosts).toContain(`[${win.address}]:${win.port} ssh-ed25519 `);
    for (const line of (await readFile(lab.linux.knownHostsPath, 'utf8')).split('\n').filter(Boolean))
      expect(knownHosts).toContain(line);
  });

  it('builds 1 controller + 1 Windows worker over WinRM + 1 over SSH, verifies it, and tears it down', async () => {
    const plan = await kubemix(['plan', lab.specPath, '-o', 'json']);
    expect(plan.exitCode).toBe(0);
    const tasks = (JSON.parse(plan.stdout) as { tasks: { name: string }[] }).tasks.map((t) => t.name);
    expect(tasks).toEqual([
      'prepare-provider',
      'wait-for-hosts',
      'prepare-linux',
      'init-control-plane',
      'install-flannel',
      'prepare-windows',
      'join-windows-workers',
      'install-windows-networking',
      'verify',
    ]);

    upDone = true;
    const up = await kubemix(['up', lab.specPath, '--cluster-dir', clusterDir]);
    expect(up.stderr).toBe('');
    expect(up.exitCode).toBe(0);
    expect(doneIn(up.stdout).sort()).toEqual([...tasks].sort());

    // Install-Containerd.ps1 asked for a restart on both: each host really went down and came
    // back (for the SSH one, its sshd was killed and started again).
    for (const name of ['win-01', 'win-ssh-01']) {
      expect(up.stdout).toContain(
        `CHANGED prepare-windows ${name}: Reboot to finish the Windows features Install-Containerd.ps1 changed`,
      );
      const host = lab.windows.host(name);
      expect(host.bootCount, name).toBe(2);
      expect(host.feature('Containers')?.state, name).toBe('Installed');
      expect(host.service('containerd')?.state, name).toBe('running');
      expect(host.service('kubelet')?.state, name).toBe('running');
      expect(host.hookErrors, name).toEqual([]);
    }
    expect(lab.windows.errors).toEqual([]);
    // The SSH host was reached over SSH: its sshd logged the lab key's logins.
    const sshdLog = await readFile(join(lab.dir, 'windows-ssh', 'win-ssh-01', 'sshd.log'), 'utf8');
    expect(sshdLog).toMatch(/Accepted publickey for root/);
    // ... and only over SSH: its WinRM twin saw no connection, while win-01's served the build.
    expect(lab.windows.server('win-ssh-01').stats.connections).toBe(0);
    expect(lab.windows.server('win-01').stats.connections).toBeGreaterThan(0);

    // By name: the two Windows joins run in parallel, so their order in the state varies.
    const nodes = (await lab.linux.cluster.nodes()).sort((a, b) =>
      a.metadata.name.localeCompare(b.metadata.name),
    );
    expect(nodes.map((n) => [n.metadata.name, n.metadata.labels?.['kubernetes.io/os'], ready(n)])).toEqual([
      ['lab-01', 'linux', 'True'],
      ['win-01', 'windows', 'True'],
      ['win-ssh-01', 'windows', 'True'],
    ]);
    for (const check of CHECKS) expect(up.stdout).toMatch(new RegExp(`^${check} +ok `, 'm'));
    const report = JSON.parse(await readFile(join(clusterDir, 'verify.json'), 'utf8')) as {
      ok: boolean;
      checks: { check: string; ok: boolean }[];
    };
    expect(report.ok).toBe(true);
    expect(report.checks.map((c) => [c.check, c.ok])).toEqual(CHECKS.map((c) => [c, true]));

    const down = await kubemix(['down', lab.specPath, '--cluster-dir', clusterDir]);
    expect(down.stderr).toBe('');
    expect(down.exitCode).toBe(0);
    upDone = false;
    expect(await lab.linux.cluster.nodes()).toEqual([]);
    for (const name of ['win-01', 'win-ssh-01']) {
      const host = lab.windows.host(name);
      expect(host.fs.exists('C:\\etc\\kubernetes\\kubelet.conf'), name).toBe(false);
      expect(host.service('kubelet')?.state, name).toBe('stopped');
    }
  });
});
