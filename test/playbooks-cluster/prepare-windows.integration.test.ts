import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import type { ClusterState } from '../../fixtures/lab/cluster-state.js';
import { registerClusterCommands } from '../../fixtures/windows-sim/cluster-commands.js';
import { windowsSandboxImage } from '../../fixtures/windows-sim/containerd-sandbox.js';
import { startWindowsLab, type WindowsLab } from '../../fixtures/windows-sim/lab.js';
import { createTransport } from '../../src/executor/create-transport.js';
import { windowsWorkload } from '../../src/manifests/index.js';
import { type PlaybookResult, parseInventory, parsePlaybook, runPlaybook } from '../../src/playbook/index.js';
import type { RunEvent } from '../../src/types/events.js';
import { loadVersions } from '../../src/versions/versions.js';
import { DEFAULT_KUBERNETES, OLDEST_TESTED_KUBERNETES } from '../helpers/kubernetes-test-versions.js';
import { testTempDir } from '../helpers/temp.js';
import { initialisedState } from '../lab/helpers.js';
import { CLUSTER_PLAYBOOKS, versionVars } from './helpers.js';

// prepare-windows on simulated Windows hosts that were prepared before, with the real runner over
// WinRM: it must leave the release it is asked for and repair a run that stopped half-way, which
// the simulator's sig-windows-tools scripts make hard the way the real ones do (a second
// PrepareNode.ps1 trips over its own link, service and firewall rule; Install-Containerd.ps1 does
// not replace a running containerd: fixtures/windows-sim/prepare-node-script.ts,
// install-containerd-script.ts). The Kubernetes versions are the tests' own (the default and the
// oldest supported minor), never written here.

const VERSIONS = loadVersions();
const ENDPOINT = '10.233.1.2:6443';
let lab: WindowsLab;
let state: ClusterState;
let failuresFile: string;

beforeAll(async () => {
  ({ state } = await initialisedState());
  failuresFile = join(await testTempDir('prepare-windows'), 'failures.json');
  lab = await startWindowsLab({
    hosts: ['win-rebuild', 'win-repair', 'win-upgrade', 'win-again'].map((name) => ({
      name,
      rebootDownMs: 100,
    })),
  });
  registerClusterCommands(lab.simulator, { stateDir: state.dir, failuresFile });
});

afterAll(async () => {
  await lab?.stop();
});

/** One play on one host: `tasks` (default: the whole file) of a cluster task file. */
async function play(
  host: string,
  file: string,
  vars: Record<string, unknown>,
  tasks?: unknown[],
): Promise<{ result: PlaybookResult; log: string }> {
  const doc = [
    {
      name: file,
      hosts: host,
      gather_facts: false,
      tasks: tasks ?? (parse(await readFile(join(CLUSTER_PLAYBOOKS, file), 'utf8')) as unknown[]),
    },
  ];
  const playbook = parsePlaybook(stringify(doc), join(CLUSTER_PLAYBOOKS, '_test-run.yml'));
  const inventory = parseInventory(lab.inventoryYaml('winrm'), 'windows.yml');
  inventory.hosts = inventory.hosts.filter((h) => h.name === host);
  const events: RunEvent[] = [];
  const result = await runPlaybook({
    playbook,
    inventory,
    extraVars: vars,
    transports: createTransport,
    onEvent: (e) => events.push(e),
  });
  return { result, log: JSON.stringify(events) };
}

/** prepare-windows as the plan runs it for a Windows Server 2022 node. */
function prepare(host: string, kubernetesVersion: string, versions: Record<string, string> = {}) {
  return play(host, 'prepare-windows.yml', {
    versions: { ...VERSIONS, ...versions },
    ...versionVars(kubernetesVersion),
    windows_workload_by_node: { [host]: windowsWorkload('2022') },
  });
}

/** The steps of a run that failed, with their messages. */
const failed = (run: { result: PlaybookResult }) =>
  run.result.records.filter((r) => r.status === 'failed').map((r) => `${r.task}: ${r.msg ?? ''}`);
const status = (run: { result: PlaybookResult }, task: string) =>
  run.result.records.find((r) => r.task === task)?.status;

/** What a command prints on the host, through the same transport kubemix uses. */
async function onHost(host: string, command: string): Promise<{ exitCode: number; stdout: string }> {
  const transport = createTransport(lab.hosts.find((h) => h.name === host)!);
  await transport.connect();
  try {
    const ran = await transport.exec({ command });
    return { exitCode: ran.exitCode ?? -1, stdout: ran.stdout.trim() };
  } finally {
    await transport.close();
  }
}

/** join-windows-workers' steps on the node itself (the wait for the API server runs on a controller). */
async function joinNode(host: string, joinCommand: string) {
  const tasks = parse(await readFile(join(CLUSTER_PLAYBOOKS, 'join-windows-workers.yml'), 'utf8')) as {
    name: string;
  }[];
  return play(
    host,
    'join-windows-workers.yml',
    { outputs: { join_command: joinCommand }, first_controller: 'none', ansible_host: 'win.example' },
    tasks.filter((t) => !t.name.startsWith('Wait until the API server lists the node')),
  );
}

/** A control plane at `version`: the cluster the node joins (cp1 holds it). */
async function clusterAt(version: string): Promise<string> {
  const init = await state.initCluster({
    controlPlaneEndpoint: ENDPOINT,
    podCIDR: '10.244.0.0/16',
    serviceCIDR: '10.96.0.0/12',
    kubernetesVersion: version,
    firstNode: { name: 'cp1', address: '10.233.1.2' },
  });
  return `kubeadm join ${ENDPOINT} --token ${init.token} --discovery-token-ca-cert-hash ${init.caCertHash}`;
}

const kubeletVersionOf = async (node: string) =>
  (
    (await state.nodes()).find((n) => n.metadata.name === node)?.['status'] as
      | { nodeInfo?: { kubeletVersion?: string } }
      | undefined
  )?.nodeInfo?.kubeletVersion;

describe('prepare-windows on a node that was prepared before', () => {
  it('a rebuild at an older Kubernetes version after a newer one ends with the older kubelet', async () => {
    expect(OLDEST_TESTED_KUBERNETES).not.toBe(DEFAULT_KUBERNETES);
    await state.reset('cp1');
    const first = await prepare('win-rebuild', DEFAULT_KUBERNETES);
    expect(failed(first), first.log.slice(-3000)).toEqual([]);
    const joined = await joinNode('win-rebuild', await clusterAt(DEFAULT_KUBERNETES));
    expect(failed(joined), joined.log.slice(-3000)).toEqual([]);
    expect(await kubeletVersionOf('win-rebuild')).toBe(`v${DEFAULT_KUBERNETES}`);

    // `kubemix down`: the node resets; the controller's reset takes the cluster with it.
    const down = await play('win-rebuild', 'cleanup-windows.yml', { flannel_vni: 4096 });
    expect(failed(down)).toEqual([]);
    await state.reset('cp1');

    const again = await prepare('win-rebuild', OLDEST_TESTED_KUBERNETES);
    expect(failed(again), again.log.slice(-3000)).toEqual([]);
    expect(await onHost('win-rebuild', '& C:/k/kubelet.exe --version')).toEqual({
      exitCode: 0,
      stdout: `Kubernetes v${OLDEST_TESTED_KUBERNETES}`,
    });
    expect((await onHost('win-rebuild', '& C:/k/kubeadm.exe version -o short')).stdout).toBe(
      `v${OLDEST_TESTED_KUBERNETES}`,
    );
    const rejoined = await joinNode('win-rebuild', await clusterAt(OLDEST_TESTED_KUBERNETES));
    expect(failed(rejoined), rejoined.log.slice(-3000)).toEqual([]);
    expect(await kubeletVersionOf('win-rebuild')).toBe(`v${OLDEST_TESTED_KUBERNETES}`);
    await play('win-rebuild', 'cleanup-windows.yml', { flannel_vni: 4096 });
    await state.reset('cp1');
  });

  it('a PrepareNode.ps1 run that stopped half-way (its nssm download failed) is repaired by the next prepare-windows', async () => {
    await writeFile(failuresFile, JSON.stringify({ 'download nssm-2.24.zip@win-repair': 1 }));
    const broken = await prepare('win-repair', DEFAULT_KUBERNETES);
    expect(failed(broken)).toEqual([
      expect.stringMatching(/^Install kubelet and kubeadm \(PrepareNode\.ps1\): /),
    ]);
    // What the stopped run left: the programs, and no kubelet service nor firewall rule.
    expect((await onHost('win-repair', '& C:/k/kubelet.exe --version')).stdout).toBe(
      `Kubernetes v${DEFAULT_KUBERNETES}`,
    );
    expect((await onHost('win-repair', "(Get-Service -Name 'kubelet').Status")).exitCode).toBe(1);

    const repaired = await prepare('win-repair', DEFAULT_KUBERNETES);
    expect(failed(repaired), repaired.log.slice(-3000)).toEqual([]);
    expect(status(repaired, 'Install kubelet and kubeadm (PrepareNode.ps1)')).toBe('changed');
    expect(await onHost('win-repair', "(Get-Service -Name 'kubelet').Status")).toEqual({
      exitCode: 0,
      stdout: 'Stopped',
    });
    expect((await onHost('win-repair', "Get-NetFirewallRule -Name 'kubelet'")).exitCode).toBe(0);
  });

  it('a containerd of another release is replaced by the pinned one', async () => {
    const other = await prepare('win-upgrade', DEFAULT_KUBERNETES, { containerd: '2.3.3' });
    expect(failed(other), other.log.slice(-3000)).toEqual([]);
    expect(
      (await onHost('win-upgrade', "& 'C:/Program Files/containerd/containerd.exe' --version")).stdout,
    ).toMatch(/^containerd github\.com\/containerd\/containerd\/v2 v2\.3\.3 [0-9a-f]{40}$/);

    const pinned = await prepare('win-upgrade', DEFAULT_KUBERNETES);
    expect(failed(pinned), pinned.log.slice(-3000)).toEqual([]);
    expect(
      (await onHost('win-upgrade', "& 'C:/Program Files/containerd/containerd.exe' --version")).stdout.split(
        ' ',
      )[2],
    ).toBe(`v${VERSIONS['containerd']}`);
    expect((await onHost('win-upgrade', "(Get-Service -Name 'containerd').Status")).stdout).toBe('Running');
    // The node's Kubernetes programs were current: PrepareNode.ps1 did not run again.
    expect(status(pinned, 'Install kubelet and kubeadm (PrepareNode.ps1)')).toBe('skipped');
  });

  it('runs neither script again when the node has what it needs', async () => {
    const first = await prepare('win-again', DEFAULT_KUBERNETES);
    expect(failed(first), first.log.slice(-3000)).toEqual([]);
    // containerd's sandbox image is kubeadm's for the version (what offline mode imports), read by
    // the simulated containerd from the configuration prepare-windows left.
    const sandbox = versionVars(DEFAULT_KUBERNETES)['sandbox_image'];
    expect(sandbox).toMatch(/^registry\.k8s\.io\/pause:/);
    expect(windowsSandboxImage(lab.simulator.hosts.get('win-again')!)).toBe(sandbox);
    expect(status(first, 'Restart containerd for its new configuration')).toBe('changed');
    const again = await prepare('win-again', DEFAULT_KUBERNETES);
    expect(failed(again), again.log.slice(-3000)).toEqual([]);
    expect(status(again, "containerd configuration (kubeadm's sandbox image, the CNI paths)")).toBe('ok');
    expect(status(again, 'Restart containerd for its new configuration')).toBe('skipped');
    expect(
      [
        'Remove the containerd service of another release or a half-finished install',
        'Install containerd (Install-Containerd.ps1 installs the Windows features first)',
        'Remove the kubelet service before PrepareNode.ps1 registers it again',
        'Remove the pki link before PrepareNode.ps1 makes it again',
        'Remove the kubelet firewall rule before PrepareNode.ps1 adds it again',
        'Install kubelet and kubeadm (PrepareNode.ps1)',
      ].map((task) => status(again, task)),
    ).toEqual(['skipped', 'skipped', 'skipped', 'skipped', 'skipped', 'skipped']);
  });
});
