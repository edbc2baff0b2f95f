import { isIP } from 'node:net';
import { manifestVarsFromPlanVars } from '../manifests/vars.js';
import { windowsWorkload } from '../manifests/windows-workloads.js';
import { providerFor } from '../provider/index.js';
import type { ProviderTask } from '../provider/types.js';
import { parseHostPort } from '../spec/field-patterns.js';
import type { ClusterSpec } from '../spec/schema.js';
import { type InventoryHost, nodeAddressOf } from '../types/inventory.js';
import type { ClusterTaskName, Plan, PlanStep, PlanTask } from '../types/plan.js';
import { type KubeadmImages, sandboxImage } from '../versions/buildable.js';
import { kubernetesPackage, parseKubernetesVersion } from '../versions/kubernetes-support.js';
import type { Versions } from '../versions/versions.js';
import { LOCALHOST, nodeRequests } from './hosts.js';
import { waitForHostSteps } from './preflight-steps.js';

/** Inputs of planning: all data, no I/O. */
export interface BuildPlanOptions {
  spec: ClusterSpec;
  versions: Versions;
  /** The cluster directory on the machine running kubemix (admin.conf lands there). */
  clusterDir?: string;
  /**
   * Steps of the cluster playbooks by file stem (see loadClusterPlaybooks): `<task>` runs on all
   * the task's hosts, `<task>-linux` / `<task>-windows` only on hosts of that OS.
   */
  playbooks?: Readonly<Record<string, PlanStep[]>>;
  /** Directory the playbooks' templates and files are found under (the `playbook_dir` variable). */
  playbookDir?: string;
  /** The cluster's SSH public key, for providers that create machines and log in with it. */
  publicKey?: string;
  /**
   * kubeadm's etcd, CoreDNS and pause tags for the cluster's minor (src/versions/buildable.ts):
   * the vars `kubeadm_images` and `sandbox_image` (containerd's sandbox on every node). A teardown
   * plan needs neither.
   */
  kubeadmImages?: KubeadmImages;
}

/**
 * A task's steps from the playbooks, or undefined when a file it needs is missing: the task
 * then stays "not implemented yet" instead of running half of its work.
 */
export function playbookSteps(
  task: string,
  hosts: InventoryHost[],
  playbooks: Readonly<Record<string, PlanStep[]>>,
): PlanStep[] | undefined {
  const shared = playbooks[task];
  const oses = [...new Set(hosts.map((h) => h.os))];
  const perOs = oses.map((os) => ({ os, steps: playbooks[`${task}-${os}`] }));
  if (shared === undefined && perOs.some((p) => p.steps === undefined)) return undefined;
  if (shared === undefined && perOs.length === 0) return undefined;
  return [...(shared ?? []), ...perOs.flatMap((p) => (p.steps ?? []).map((step) => ({ ...step, os: p.os })))];
}

const API_SERVER_PORT = 6443;

/** The spec's endpoint `host[:port]` (IPv6 in brackets), or the first controller, and the port. */
function apiServer(endpoint: string | undefined, firstControllerAddress: string): [string, number] {
  const parsed = endpoint === undefined ? undefined : parseHostPort(endpoint);
  if (parsed) return [parsed.host, parsed.port ?? API_SERVER_PORT];
  return [firstControllerAddress, API_SERVER_PORT];
}

/**
 * The first controller's node address, or, for a machine a provider creates (its address is
 * assigned at run time and recorded in the state), a template of it: the run's inventory gives
 * `kubemix_node_addresses` (src/engine/outputs.ts), so kubeadm's controlPlaneEndpoint and the
 * Windows flannel override get the recorded address, never an empty host.
 */
function firstControllerAddress(host: InventoryHost): string {
  const known = nodeAddressOf(host);
  return known !== '' ? known : '{{ kubemix_node_addresses[first_controller] }}';
}

/** `host:port`, with an IPv6 host in brackets (how kubeadm and kubeconfigs write it). */
const hostPort = (host: string, port: number) => (isIP(host) === 6 ? `[${host}]:${port}` : `${host}:${port}`);

const names = (hosts: InventoryHost[]) => hosts.map((h) => h.name);

interface TaskDraft {
  name: ClusterTaskName;
  description: string;
  needs: ClusterTaskName[];
  hosts: InventoryHost[];
  /** Steps built in code; undefined: the playbooks' steps. */
  steps?: PlanStep[];
  /** A provider task: its steps are final (undefined: not implemented yet). */
  provider?: boolean;
}

const providerDraft = (name: ClusterTaskName, needs: ClusterTaskName[], task: ProviderTask): TaskDraft => ({
  name,
  description: task.description,
  needs,
  hosts: task.hosts,
  ...(task.steps ? { steps: task.steps } : {}),
  provider: true,
});

/**
 * The plan vars that follow from the cluster's Kubernetes version: the version, pkgs.k8s.io's repository and
 * Debian upstream version for it (prepare-linux, artifacts) and, when known, kubeadm's images with
 * the sandbox image every node's containerd uses.
 */
export function kubernetesVersionVars(
  kubernetesVersion: string,
  kubeadmImages: KubeadmImages | undefined,
): Record<string, unknown> {
  const parsed = parseKubernetesVersion(kubernetesVersion);
  const packages = parsed ? kubernetesPackage(parsed) : undefined;
  return {
    kubernetes_version: kubernetesVersion,
    ...(packages
      ? { kubernetes_package_channel: packages.channel, kubernetes_package_version: packages.version }
      : {}),
    ...(kubeadmImages ? { kubeadm_images: kubeadmImages, sandbox_image: sandboxImage(kubeadmImages) } : {}),
  };
}

/**
 * Turns a spec into the task graph `kubemix up` runs. Pure: same spec, same plan.
 *
 * Windows preparation (Containers feature, reboot, containerd, PrepareNode) needs only the
 * hosts to be up, so it overlaps with control-plane init; Windows joins wait for both.
 * Tasks whose steps are not built yet are kept in the graph with `implemented: false`, so
 * `up` fails on them by name instead of pretending.
 */
export function buildPlan(options: BuildPlanOptions): Plan {
  const { spec, versions, clusterDir = '', playbooks = {}, playbookDir = '' } = options;
  const providerPlan = providerFor(spec).plan(spec, nodeRequests(spec), {
    versions,
    clusterDir,
    ...(options.publicKey === undefined ? {} : { publicKey: options.publicKey }),
  });
  const nodes = providerPlan.nodes;
  const hosts = [...providerPlan.providerHosts, ...nodes];
  const controllers = nodes.filter((h) => h.role === 'control-plane');
  const firstController = controllers.slice(0, 1);
  const linuxNodes = nodes.filter((h) => h.os === 'linux');
  const linuxWorkers = linuxNodes.filter((h) => h.role === 'worker');
  const windowsWorkers = nodes.filter((h) => h.os === 'windows');

  const drafts: TaskDraft[] = [providerDraft('prepare-provider', [], providerPlan.prepare)];
  const { createNetwork, createHosts, goldenImage } = providerPlan;
  if (createNetwork && createHosts) {
    drafts.push(
      providerDraft('create-network', ['prepare-provider'], createNetwork),
      providerDraft('create-hosts', ['create-network'], createHosts),
    );
    if (goldenImage) drafts.push(providerDraft('golden-image', ['create-hosts'], goldenImage));
  }
  drafts.push({
    name: 'wait-for-hosts',
    description: 'Wait until every node answers over its connection',
    needs: [createHosts && goldenImage ? 'golden-image' : createHosts ? 'create-hosts' : 'prepare-provider'],
    hosts: nodes,
    steps: [
      ...(providerPlan.beforeConnectSteps ?? []),
      ...waitForHostSteps(providerPlan.waitTimeoutSec),
      ...providerPlan.waitSteps,
    ],
  });
  drafts.push(
    {
      name: 'prepare-linux',
      description: 'Kernel modules, sysctl, swap off, containerd, kubelet/kubeadm/kubectl',
      needs: ['wait-for-hosts'],
      hosts: linuxNodes,
    },
    {
      name: 'init-control-plane',
      description: `kubeadm init (pod CIDR ${spec.network.podCIDR})${controllers.length > 1 ? ', then join the other controllers' : ''}; fetch admin.conf`,
      needs: ['prepare-linux'],
      hosts: controllers,
    },
    {
      name: 'install-flannel',
      description: `Flannel ${spec.network.flannel.backend} VNI ${spec.network.flannel.vni} port ${spec.network.flannel.port}`,
      needs: ['init-control-plane'],
      hosts: firstController,
    },
  );
  if (linuxWorkers.length > 0) {
    drafts.push({
      name: 'join-linux-workers',
      description: 'kubeadm join the Linux workers',
      // It ends by waiting for each node to be Ready, which needs the pod network's CNI config:
      // without install-flannel here, --stop-after join-linux-workers would wait forever.
      needs: ['install-flannel', 'prepare-linux'],
      hosts: linuxWorkers,
    });
  }
  if (windowsWorkers.length > 0) {
    drafts.push(
      {
        name: 'prepare-windows',
        description: 'Containers feature (+ reboot), containerd, PrepareNode.ps1',
        needs: ['wait-for-hosts'],
        hosts: windowsWorkers,
      },
      {
        name: 'join-windows-workers',
        description: 'kubeadm join the Windows workers',
        needs: ['prepare-windows', 'init-control-plane'],
        hosts: windowsWorkers,
      },
      {
        name: 'install-windows-networking',
        description: 'Windows flannel (HostProcess, VXLAN) and kube-proxy DaemonSets',
        needs: ['join-windows-workers', 'install-flannel'],
        hosts: firstController,
      },
    );
  }
  const verifyNeeds = drafts
    .map((d) => d.name)
    .filter((name) => !drafts.some((other) => other.needs.includes(name)));
  drafts.push({
    name: 'verify',
    description: `Deploy ${windowsWorkers.length > 0 ? 'agnhost netexec (Linux) and win-webserver (Windows)' : 'agnhost netexec'} and check node/pod/service/DNS/NodePort/outbound`,
    needs: verifyNeeds,
    hosts: firstController,
  });

  const tasks: PlanTask[] = drafts.map((draft) => {
    const steps = draft.provider
      ? draft.steps
      : (draft.steps ?? playbookSteps(draft.name, draft.hosts, playbooks));
    return {
      name: draft.name,
      description: draft.description,
      needs: draft.needs,
      hosts: names(draft.hosts),
      steps: steps ?? [],
      implemented: steps !== undefined,
    };
  });

  // The API address every node and the Windows flannel override use: the load-balanced endpoint
  // when there is one, else the first controller's node address (not the address kubemix
  // connects to: an EC2 public address exists on no interface, and the API server is not there).
  const [apiServerHost, apiServerPort] = apiServer(
    spec.nodes.controlPlane.endpoint,
    controllers[0] ? firstControllerAddress(controllers[0]) : '',
  );
  const networkVars = {
    pod_cidr: spec.network.podCIDR,
    service_cidr: spec.network.serviceCIDR,
    flannel_backend: spec.network.flannel.backend,
    flannel_vni: spec.network.flannel.vni,
    flannel_port: spec.network.flannel.port,
    versions: { ...versions },
  };
  const kubernetesVersion = (spec.kubernetes.version ?? versions['kubernetes'] ?? '').replace(/^v/, '');
  const manifestVars = manifestVarsFromPlanVars(networkVars, {
    kubernetesVersion,
    apiServerHost: apiServerHost || 'pending',
    apiServerPort,
    windowsVersions: windowsWorkers.map((h) => h.windowsVersion ?? '2022'),
    linuxWorkers: linuxWorkers.length,
  });

  return {
    cluster: spec.name,
    // localhost is a plan host wherever a task runs there (static and EC2 provider tasks).
    hosts: drafts.some((d) => d.hosts.includes(LOCALHOST)) ? [LOCALHOST, ...hosts] : hosts,
    tasks,
    vars: {
      ...manifestVars,
      ...networkVars,
      cluster_name: spec.name,
      cluster_dir: clusterDir,
      playbook_dir: playbookDir,
      ...kubernetesVersionVars(kubernetesVersion, options.kubeadmImages),
      control_plane_endpoint: hostPort(apiServerHost, apiServerPort),
      // A spec's endpoint is the operator's too; else the operator's kubeconfig names the first
      // controller's connect address (playbooks/cluster/init-control-plane.yml).
      control_plane_endpoint_given: spec.nodes.controlPlane.endpoint !== undefined,
      first_controller: controllers[0]?.name ?? '',
      controller_count: controllers.length,
      windows_nodes: windowsWorkers.map((h) => ({
        name: h.name,
        windows_version: h.windowsVersion ?? '2022',
        taint: spec.nodes.workers.find((g) => g.name === h.group)?.taint ?? false,
      })),
      // Each Windows node's workload (its version's image, for prepare-windows' pre-pull), by name.
      windows_workload_by_node: Object.fromEntries(
        windowsWorkers.map((h) => [h.name, windowsWorkload(h.windowsVersion ?? '2022')]),
      ),
      // Offline mode (spec `artifacts.dir`): the playbooks' `artifacts_dir is defined` branches.
      ...(spec.artifacts ? { artifacts_dir: spec.artifacts.dir } : {}),
      ...spec.vars,
    },
  };
}
