import { isIP } from 'node:net';
import { manifestVarsFromPlanVars } from '../manifests/vars.js';
import { windowsWorkload } from '../manifests/windows-workloads.js';
import { parseHostPort } from '../spec/field-patterns.js';
import type { ClusterSpec } from '../spec/schema.js';
import { type InventoryHost, nodeAddressOf } from '../types/inventory.js';
import { type KubeadmImages, sandboxImage } from '../versions/buildable.js';
import { kubernetesPackage, parseKubernetesVersion } from '../versions/kubernetes-support.js';
import type { Versions } from '../versions/versions.js';
import type { NodeRoles } from './task-drafts.js';

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

/** What the plan's vars are made from: the spec, the pinned versions and where the cluster lives. */
export interface PlanVarsInput {
  spec: ClusterSpec;
  versions: Versions;
  roles: NodeRoles;
  clusterDir: string;
  playbookDir: string;
  kubeadmImages: KubeadmImages | undefined;
}

/**
 * The variables every playbook of the plan sees. A stage of its own because it reads no task:
 * the same vars serve every task, and the manifests' vars (src/manifests) are derived here once.
 * The spec's own `vars` come last, so an operator can override any of them.
 */
export function planVars(input: PlanVarsInput): Record<string, unknown> {
  const { spec, versions, roles } = input;
  const { controllers, linuxWorkers, windowsWorkers } = roles;
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
    ...manifestVars,
    ...networkVars,
    cluster_name: spec.name,
    cluster_dir: input.clusterDir,
    playbook_dir: input.playbookDir,
    ...kubernetesVersionVars(kubernetesVersion, input.kubeadmImages),
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
  };
}
