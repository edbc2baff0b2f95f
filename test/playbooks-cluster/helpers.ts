import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse, stringify } from 'yaml';
import type { ClusterLab } from '../../fixtures/lab/cluster-lab.js';
import { pinnedStaticRelease } from '../../fixtures/lab/static-release.js';
import { windowsFlannelPins } from '../../fixtures/lab/windows-flannel-release.js';
import { loadArtifactsFile } from '../../src/artifacts/list.js';
import { manifestVarsFromPlanVars } from '../../src/manifests/index.js';
import { kubernetesVersionVars } from '../../src/plan/index.js';
import { type PlaybookResult, parseInventory, parsePlaybook, runPlaybook } from '../../src/playbook/index.js';
import { SshTransport } from '../../src/transport/ssh/index.js';
import type { Transport } from '../../src/transport/types.js';
import type { RunEvent } from '../../src/types/events.js';
import type { InventoryHost } from '../../src/types/inventory.js';
import { buildableVersion } from '../../src/versions/buildable.js';
import { loadVersions } from '../../src/versions/versions.js';
import { testTempDir } from '../helpers/temp.js';

/** playbooks/cluster in this checkout. */
export const CLUSTER_PLAYBOOKS = fileURLToPath(new URL('../../playbooks/cluster/', import.meta.url));

/** Where swap entries live on lab hosts (their /etc/fstab is this machine's). */
export const LAB_FSTAB = '/var/lib/kubemix-lab/fstab';

/** An SSH transport to a lab host: strict host keys from the lab's known_hosts. */
export function labSsh(lab: ClusterLab, host: InventoryHost): SshTransport {
  return new SshTransport({
    host: host.name,
    address: host.address,
    port: host.port ?? 22,
    knownHostsFiles: [lab.knownHostsPath],
    hostKeyPolicy: 'strict',
    sshConfigPath: false,
    agent: false,
    connectTimeoutMs: 5000,
    ...(host.credentials ? { credentials: host.credentials } : {}),
  });
}

/**
 * Plan variables the way build-plan makes them, for a lab cluster whose first controller is
 * `controllers[0]` and which has `linuxWorkers` Linux workers (verify's Linux workload runs on the
 * controllers without any).
 */
export async function labPlanVars(
  lab: ClusterLab,
  controllers: string[],
  linuxWorkers = 0,
): Promise<Record<string, unknown>> {
  const first = lab.hosts.find((h) => h.name === controllers[0])!;
  const network = {
    pod_cidr: '10.244.0.0/16',
    service_cidr: '10.96.0.0/12',
    flannel_backend: 'vxlan',
    flannel_vni: 4096,
    flannel_port: 4789,
    // The lab serves its own containerd static release (fixtures/lab/static-release.ts) and Windows
    // flannel release (fixtures/lab/windows-flannel-release.ts); these vars pin both, as a spec can.
    versions: {
      ...loadVersions(),
      ...pinnedStaticRelease().versions,
      ...windowsFlannelPins(loadVersions()),
    },
  };
  const manifest = manifestVarsFromPlanVars(network, {
    kubernetesVersion: network.versions['kubernetes']!,
    apiServerHost: first.address,
    apiServerPort: 6443,
    windowsVersions: ['2022'],
    linuxWorkers,
  });
  return {
    ...manifest,
    ...network,
    cluster_name: 'lab',
    cluster_dir: await testTempDir('cluster-dir'),
    ...versionVars(network.versions['kubernetes']!),
    control_plane_endpoint: `${first.address}:6443`,
    first_controller: first.name,
    controller_count: controllers.length,
    fstab_path: LAB_FSTAB,
  };
}

/**
 * The plan vars of a Kubernetes version as the plan makes them (src/plan kubernetesVersionVars):
 * the package repository and version, kubeadm's images and the sandbox image of every containerd.
 */
export function versionVars(version: string): Record<string, unknown> {
  return kubernetesVersionVars(
    version,
    buildableVersion({
      kubernetesVersion: version,
      path: ['versions', 'kubernetes'],
      versions: loadVersions(),
      kubeadmImagesByMinor: loadArtifactsFile()['kubeadm-images'],
      issue: (path, message) => ({ file: 'lab', path: path.join('.'), message }),
    }).kubeadmImages,
  );
}

/** One play: a cluster task file run on some hosts, with extra play vars. */
export interface ClusterPlay {
  /** A task file of playbooks/cluster, or `tasks` given inline (test setup). */
  file: string;
  tasks?: unknown[];
  hosts: string[];
  vars?: Record<string, unknown>;
}

/**
 * Runs cluster task files as the plays of one playbook (so what `register` keeps carries from
 * play to play, as the plan's outputs do) with the real runner over SSH. Returns the result and
 * every event, serialised.
 */
export async function runClusterPlays(
  lab: ClusterLab,
  plays: ClusterPlay[],
  vars: Record<string, unknown>,
): Promise<{ result: PlaybookResult; events: RunEvent[]; log: string }> {
  const doc = [];
  for (const play of plays) {
    const tasks =
      play.tasks ?? (parse(await readFile(join(CLUSTER_PLAYBOOKS, play.file), 'utf8')) as unknown[]);
    doc.push({
      name: play.file,
      hosts: play.hosts.join(':'),
      gather_facts: false,
      vars: play.vars ?? {},
      tasks,
    });
  }
  const playbook = parsePlaybook(stringify(doc), join(CLUSTER_PLAYBOOKS, '_lab-run.yml'));
  const inventory = parseInventory(await readFile(lab.inventoryPath, 'utf8'), lab.inventoryPath);
  const events: RunEvent[] = [];
  const result = await runPlaybook({
    playbook,
    inventory,
    extraVars: vars,
    forks: 10,
    transports: (host): Transport => labSsh(lab, host),
    onEvent: (e) => events.push(e),
  });
  return { result, events, log: JSON.stringify(events) };
}

/** The failures of a run with what the command printed, readable in an assertion message. */
export function failures(run: { result: PlaybookResult; events: RunEvent[] }): string {
  return run.result.records
    .filter((r) => r.status === 'failed' || r.status === 'unreachable')
    .map((r) => {
      const end = run.events.findLast((e) => e.type === 'step-end' && e.host === r.host && e.task === r.task);
      const output =
        end?.type === 'step-end' && end.result ? `${end.result.stdout}${end.result.stderr}`.trim() : '';
      return `${r.host}: ${r.task}: ${r.msg ?? ''}${output ? `\n  ${output.split('\n').slice(-6).join('\n  ')}` : ''}`;
    })
    .join('\n');
}
