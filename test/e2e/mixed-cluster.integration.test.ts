import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { writeLabSpec } from '../../fixtures/cluster-lab/lab-spec.js';
import { type MixedClusterLab, startMixedClusterLab } from '../../fixtures/cluster-lab/mixed-lab.js';
import { readFlannelNetConf } from '../../src/manifests/index.js';
import type { InventoryHost } from '../../src/types/inventory.js';
import { loadVersions } from '../../src/versions/versions.js';
import { kubemix, onLabHost, tempClusterDir } from './helpers.js';
import { sharedClusterState, useSharedCluster } from './shared-cluster.js';

// `kubemix up` end to end on a mixed lab: real sshd Linux hosts with the Kubernetes stand-ins
// and simulated Windows Server hosts over WinRM (NTLM + encryption) whose cluster commands join
// the same lab cluster. The CLI, plan, engine, both transports and every cluster playbook together.
// One lab for the file: 4 Linux hosts, 4 Windows hosts (each test takes a fresh Windows host,
// as the Windows side keeps containerd and the features after `down`, as a real one does; the
// 3-controller test reads the e2e tier's shared cluster instead, so lab-02, lab-03 and win-02
// stay unused).
let lab: MixedClusterLab;
/** The spec and cluster dir of the test running now, so a failed test still tears its cluster down. */
let current: { spec: string; clusterDir: string } | undefined;

const SPEC_KUBELET_ARGS = [
  '--windows-priorityclass=HIGH_PRIORITY_CLASS',
  '--system-reserved=memory=2Gi',
  '--max-pods=40',
];

const CONTROLLER_KUBELET_ARGS = ['--max-pods=60'];
const LINUX_KUBELET_ARGS = ['--node-labels=tier=linux', '--serialize-image-pulls=false'];

beforeAll(async () => {
  lab = await startMixedClusterLab({
    controllers: 3,
    linuxWorkers: 1,
    windowsWorkers: 4,
    rebootDownMs: 300,
    scale: 0,
  });
});

afterEach(async () => {
  if (current && (await lab.linux.cluster.cluster()))
    await kubemix(['down', current.spec, '--cluster-dir', current.clusterDir]);
  current = undefined;
});

afterAll(async () => {
  await lab?.stop();
});

const linux = (name: string) => lab.linux.hosts.find((h) => h.name === name)!;
const windows = (name: string) => lab.windows.hosts.find((h) => h.name === name)!;

/** A spec for some of the lab's hosts, in a fresh directory. */
async function spec(options: {
  name: string;
  linuxHosts: InventoryHost[];
  controllers: number;
  windowsHosts: InventoryHost[];
}): Promise<{ spec: string; clusterDir: string; dir: string }> {
  const dir = await tempClusterDir();
  const path = await writeLabSpec(dir, {
    ...options,
    knownHostsPath: lab.linux.knownHostsPath,
    privateKeyPath: lab.linux.privateKeyPath,
    windowsKubeletExtraArgs: SPEC_KUBELET_ARGS,
    controlPlaneKubeletExtraArgs: CONTROLLER_KUBELET_ARGS,
    linuxKubeletExtraArgs: LINUX_KUBELET_ARGS,
    ...(options.controllers > 1 ? { endpoint: `${options.linuxHosts[0]!.address}:6443` } : {}),
  });
  current = { spec: path, clusterDir: join(dir, 'cluster') };
  return { spec: path, clusterDir: join(dir, 'cluster'), dir };
}

const ready = (n: { status?: { conditions?: { type: string; status: string }[] } }) =>
  n.status?.conditions?.find((c) => c.type === 'Ready')?.status;

/** Task names and needs in plan order, from `kubemix plan -o json`. */
async function planTasks(specPath: string): Promise<{ name: string; needs: string[] }[]> {
  const plan = await kubemix(['plan', specPath, '-o', 'json']);
  expect(plan.exitCode).toBe(0);
  return (JSON.parse(plan.stdout) as { tasks: { name: string; needs: string[] }[] }).tasks;
}

/** Tasks a run finished (`DONE  name` lines). */
const doneIn = (stdout: string) => [...stdout.matchAll(/^DONE {2}(\S+)/gm)].map((m) => m[1]!);

describe('a mixed Linux + Windows cluster from one command', () => {
  it('builds 1 controller + 1 Linux worker + 1 Windows worker, verifies it, and tears it down', async () => {
    const { spec: specPath, clusterDir } = await spec({
      name: 'mixed-1-1-1',
      linuxHosts: [linux('lab-01'), linux('lab-04')],
      controllers: 1,
      windowsHosts: [windows('win-01')],
    });
    const winHost = lab.windows.host('win-01');
    const up = await kubemix(['up', specPath, '--cluster-dir', clusterDir]);
    expect(up.stderr).toBe('');
    expect(up.exitCode).toBe(0);
    const tasks = (await planTasks(specPath)).map((t) => t.name);
    expect(tasks).toEqual([
      'prepare-provider',
      'wait-for-hosts',
      'prepare-linux',
      'init-control-plane',
      'install-flannel',
      'join-linux-workers',
      'prepare-windows',
      'join-windows-workers',
      'install-windows-networking',
      'verify',
    ]);
    expect(doneIn(up.stdout).sort()).toEqual([...tasks].sort());
    // Install-Containerd.ps1 asked for a restart: the host really went down and came back.
    expect(up.stdout).toContain(
      'CHANGED prepare-windows win-01: Reboot to finish the Windows features Install-Containerd.ps1 changed',
    );
    expect(winHost.bootCount).toBe(2);
    expect(winHost.feature('Containers')?.state).toBe('Installed');
    expect(lab.windows.errors).toEqual([]);
    expect(winHost.hookErrors).toEqual([]);

    // Join order depends on which branch finishes first (Windows prep overlaps the Linux side).
    const nodes = (await lab.linux.cluster.nodes()).sort((a, b) =>
      a.metadata.name.localeCompare(b.metadata.name),
    );
    expect(nodes.map((n) => [n.metadata.name, n.metadata.labels?.['kubernetes.io/os'], ready(n)])).toEqual([
      ['lab-01', 'linux', 'True'],
      ['lab-04', 'linux', 'True'],
      ['win-01', 'windows', 'True'],
    ]);
    expect(nodes[2]!.metadata.labels?.['node.kubernetes.io/windows-build']).toBe('10.0.20348');

    // verify: the six checks of the Windows guide, printed and written as JSON.
    for (const check of ['node-to-pod', 'pod-to-pod', 'service-vip', 'service-dns', 'nodeport', 'outbound'])
      expect(up.stdout).toMatch(new RegExp(`^${check} +ok `, 'm'));
    const report = JSON.parse(await readFile(join(clusterDir, 'verify.json'), 'utf8')) as {
      ok: boolean;
      passed: number;
      checks: { check: string; ok: boolean; detail: string }[];
    };
    expect(report.ok).toBe(true);
    expect(report.passed).toBe(6);
    expect(report.checks.map((c) => [c.check, c.ok])).toEqual(
      ['node-to-pod', 'pod-to-pod', 'service-vip', 'service-dns', 'nodeport', 'outbound'].map((c) => [
        c,
        true,
      ]),
    );

    // Pod to pod crossed the VXLAN both ways: the Linux client (on the Linux worker) to the
    // Windows pods, and a Windows pod to the Linux netexec pod.
    const podToPod = report.checks.find((c) => c.check === 'pod-to-pod')!.detail;
    expect(podToPod).toMatch(
      /linux-netexec-client-\S+ \(lab-04\) -> win-webserver-2022-\S+ on win-01 \((\S+)\): HTTP answer from pod IP \1/,
    );
    expect(podToPod).toMatch(
      /win-webserver-2022-\S+ \(win-01\) -> (linux-netexec-\S+) on lab-04 \(\S+\): hostname \1/,
    );

    // One VXLAN on both sides, read back from what the stand-in API server stored.
    const configMaps = await lab.linux.cluster.listObjects('ConfigMap', 'kube-flannel');
    const linuxNet = readFlannelNetConf(configMaps, 'kube-flannel-cfg');
    const windowsNet = readFlannelNetConf(configMaps, 'kube-flannel-windows-cfg');
    expect([linuxNet.vni, linuxNet.port]).toEqual([4096, 4789]);
    expect([windowsNet.vni, windowsNet.port]).toEqual([4096, 4789]);

    // The spec's kubelet args reached the Windows kubelet through kubeadm's flags file, and the
    // Linux kubelets through theirs on the lab hosts.
    const flags = winHost.fs.read('C:\\var\\lib\\kubelet\\kubeadm-flags.env')?.toString('utf8') ?? '';
    for (const arg of SPEC_KUBELET_ARGS) expect(flags).toContain(` ${arg}`);
    const flagsOn = (host: InventoryHost) =>
      onLabHost(lab.linux, host, 'cat /var/lib/kubelet/kubeadm-flags.env');
    const controllerFlags = await flagsOn(linux('lab-01'));
    for (const arg of CONTROLLER_KUBELET_ARGS) expect(controllerFlags).toContain(` ${arg}`);
    const workerFlags = await flagsOn(linux('lab-04'));
    for (const arg of LINUX_KUBELET_ARGS) expect(workerFlags).toMatch(new RegExp(` ${arg}[ "]`));
    expect(flags).toContain('--hostname-override=win-01');
    expect(winHost.fs.exists('C:/k/kubeadm-join.yaml')).toBe(false);
    expect(winHost.service('kubelet')?.state).toBe('running');

    // No join token (nor the Windows password) in the output, the state or the event log.
    const tokens = (await lab.linux.cluster.listTokens()).map((t) => t.token);
    expect(tokens.length).toBeGreaterThan(0);
    const state = await readFile(join(clusterDir, 'state.json'), 'utf8');
    const runs = await readdir(join(clusterDir, 'runs'));
    const logs = await Promise.all(runs.map((f) => readFile(join(clusterDir, 'runs', f), 'utf8')));
    const password = process.env[lab.passwordEnv]!;
    for (const secret of [...tokens, ...tokens.map((t) => t.split('.')[1]!), password])
      for (const text of [up.stdout, state, ...logs]) expect(text).not.toContain(secret);

    const verify = await kubemix(['verify', specPath, '--cluster-dir', clusterDir]);
    expect(verify.stderr).toBe('');
    expect(verify.exitCode).toBe(0);
    expect(verify.stdout).toMatch(/^outbound +ok /m);

    const down = await kubemix(['down', specPath, '--cluster-dir', clusterDir]);
    expect(down.stderr).toBe('');
    expect(down.exitCode).toBe(0);
    expect(await lab.linux.cluster.nodes()).toEqual([]);
    expect(winHost.fs.exists('C:\\etc\\kubernetes\\kubelet.conf')).toBe(false);
    expect(winHost.service('kubelet')?.state).toBe('stopped');
  });

  describe('the shared cluster', () => {
    const builtCluster = useSharedCluster();

    it('builds 3 controllers behind the first one’s address, plus a Windows worker (the shared cluster)', async () => {
      // The e2e tier's shared cluster (test/setup/shared-cluster.ts): 3 controllers + 1 Linux worker
      // + 1 Windows worker, built once for the files that only read it. Its `down` (exit 0, no node
      // left) is checked when the run ends.
      const shared = builtCluster();
      const state = sharedClusterState(shared);
      const first = shared.linuxHosts.find((h) => h.name === 'lab-01')!;
      expect(shared.up.stderr).toBe('');
      expect(shared.up.exitCode).toBe(0);
      expect(shared.up.stdout).toContain('DONE  verify');
      const nodes = await state.nodes();
      const controlPlanes = nodes.filter(
        (n) => 'node-role.kubernetes.io/control-plane' in (n.metadata.labels ?? {}),
      );
      expect(controlPlanes.map((n) => n.metadata.name).sort()).toEqual(['lab-01', 'lab-02', 'lab-03']);
      expect(nodes.filter((n) => ready(n) === 'True').map((n) => n.metadata.name)).toContain('win-01');
      // The Windows node joined through the endpoint the spec names and its kubelet talks to it.
      expect((await state.cluster())?.controlPlaneEndpoint).toBe(`${first.address}:6443`);
      expect(shared.windowsKubeletConf['win-01']).toContain(`server: https://${first.address}:6443`);
    });
  });

  it('reports a failed Windows task by task, host and command, keeps the Linux branch going, and resumes', async () => {
    const { spec: specPath, clusterDir } = await spec({
      name: 'mixed-failure',
      linuxHosts: [linux('lab-01'), linux('lab-04')],
      controllers: 1,
      windowsHosts: [windows('win-03')],
    });
    // Through the lab's failure file, as another process (the demo's lab) would be told.
    await writeFile(lab.failuresFile, JSON.stringify({ 'Install-Containerd.ps1@win-03': 1 }));
    const failed = await kubemix(['up', specPath, '--cluster-dir', clusterDir]);
    expect(failed.exitCode).toBe(1);
    // One clear account: task, host, step, the command that ran, its exit code and its words.
    expect(failed.stderr).toContain('FAILED prepare-windows on win-03: Install containerd');
    expect(failed.stderr).toContain(
      `ran: & C:/k/Install-Containerd.ps1 -ContainerDVersion '${loadVersions()['containerd']}' -crictlVersion '${loadVersions()['crictl']}' -skipHypervisorSupportCheck -CNIBinPath 'c:/opt/cni/bin' -CNIConfigPath 'c:/etc/cni/net.d'`,
    );
    expect(failed.stderr).toContain('exit code: 1');
    expect(failed.stderr).toContain(
      'Install-Containerd.ps1 : failure injected by the kubemix lab: Install-Containerd.ps1@win-03 fails on win-03',
    );
    expect(failed.stdout).toContain('SKIP  join-windows-workers (dependency-failed)');
    // Windows preparation overlaps the Linux side: what was running when it failed finished in the
    // same run (the engine starts nothing new after a failure, so how far the Linux side got
    // depends on timing; prepare-linux starts with prepare-windows).
    const started = [...failed.stdout.matchAll(/^START (\S+)/gm)].map((m) => m[1]!);
    expect(started).toContain('prepare-linux');
    expect(doneIn(failed.stdout).sort()).toEqual(started.filter((t) => t !== 'prepare-windows').sort());
    expect(doneIn(failed.stdout)).not.toContain('prepare-windows');
    expect(doneIn(failed.stdout)).not.toContain('verify');
    expect(JSON.parse(await readFile(lab.failuresFile, 'utf8'))).toEqual({
      'Install-Containerd.ps1@win-03': 0,
    });

    const resumed = await kubemix(['up', specPath, '--cluster-dir', clusterDir]);
    expect(resumed.stderr).toBe('');
    expect(resumed.exitCode).toBe(0);
    // The resumed run redoes nothing the failed one finished, and does all the rest.
    const doneBefore = doneIn(failed.stdout);
    for (const task of doneBefore) expect(resumed.stdout).toContain(`SKIP  ${task} (already-done)`);
    const tasks = (await planTasks(specPath)).map((t) => t.name);
    expect(doneIn(resumed.stdout).sort()).toEqual(tasks.filter((t) => !doneBefore.includes(t)).sort());
    expect(doneIn(resumed.stdout)).toEqual(
      expect.arrayContaining([
        'prepare-windows',
        'join-windows-workers',
        'install-windows-networking',
        'verify',
      ]),
    );
    expect((await lab.linux.cluster.nodes()).map((n) => n.metadata.name)).toContain('win-03');
    const down = await kubemix(['down', specPath, '--cluster-dir', clusterDir]);
    expect(down.exitCode).toBe(0);
  });

  it('stops after each task in plan order and resumes, running only what is missing', async () => {
    const { spec: specPath, clusterDir } = await spec({
      name: 'mixed-stepwise',
      linuxHosts: [linux('lab-01'), linux('lab-04')],
      controllers: 1,
      windowsHosts: [windows('win-04')],
    });
    const tasks = await planTasks(specPath);
    const needs = new Map(tasks.map((t) => [t.name, t.needs]));
    const withAncestors = (name: string, into = new Set<string>()) => {
      into.add(name);
      for (const need of needs.get(name) ?? []) withAncestors(need, into);
      return into;
    };
    const done = new Set<string>();
    for (const { name } of tasks) {
      const run = await kubemix(['up', specPath, '--cluster-dir', clusterDir, '--stop-after', name]);
      expect(run.stderr).toBe('');
      expect(run.exitCode).toBe(0);
      const expected = [...withAncestors(name)].filter((t) => !done.has(t));
      expect(doneIn(run.stdout).sort()).toEqual(expected.sort());
      for (const t of expected) done.add(t);
      const state = JSON.parse(await readFile(join(clusterDir, 'state.json'), 'utf8')) as {
        tasks: Record<string, { status: string }>;
      };
      for (const t of tasks.map((x) => x.name))
        expect(state.tasks[t]?.status === 'done', `${t} after --stop-after ${name}`).toBe(done.has(t));
    }
    expect(done.size).toBe(tasks.length);
    const nodes = await lab.linux.cluster.nodes();
    expect(nodes.map((n) => [n.metadata.name, ready(n)])).toEqual([
      ['lab-01', 'True'],
      ['lab-04', 'True'],
      ['win-04', 'True'],
    ]);
    const final = await kubemix(['up', specPath, '--cluster-dir', clusterDir]);
    expect(final.exitCode).toBe(0);
    expect(doneIn(final.stdout)).toEqual([]);
    const down = await kubemix(['down', specPath, '--cluster-dir', clusterDir]);
    expect(down.exitCode).toBe(0);
  });
});
