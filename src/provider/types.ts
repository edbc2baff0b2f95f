import type { ClusterSpec } from '../spec/schema.js';
import type { ConnectionKind, HostCredentials, HostOs, InventoryHost } from '../types/inventory.js';
import type { PlanStep } from '../types/plan.js';
import type { ProviderResource } from '../types/provision.js';
import type { WindowsVersion } from '../types/windows.js';
import type { Versions } from '../versions/versions.js';

/** A Kubernetes node the spec asks for, before a provider gives it a machine. */
export interface NodeRequest {
  name: string;
  group: string;
  role: 'control-plane' | 'worker';
  os: HostOs;
  connection: ConnectionKind;
  credentials?: HostCredentials;
  /** Where `credentials` was written in the spec (e.g. `nodes.workers.1.credentials`). */
  credentialsPath?: string;
  windowsVersion?: WindowsVersion;
  vcpus?: number;
  memoryGiB?: number;
  diskGiB?: number;
  /** Playbook variables of the node (kubelet arguments, Hyper-V...). */
  vars?: Record<string, unknown>;
}

/** One provider task of the build or teardown plan: where it runs and its steps. */
export interface ProviderTask {
  description: string;
  /** Hosts the steps run on: `localhost` (static, EC2) or the hypervisors that get guests. */
  hosts: InventoryHost[];
  /** Undefined while the task is not built yet for this spec: the engine fails it by name. */
  steps: PlanStep[] | undefined;
}

/** What a provider adds to the build plan. Pure data: the same spec gives the same plan. */
export interface ProviderPlan {
  /** Hosts provider tasks run on, besides `localhost` (the hypervisors). */
  providerHosts: InventoryHost[];
  /**
   * The cluster's nodes as known before they exist. An address that only `create-hosts` learns
   * is '' (the plan shows "assigned at create-hosts"); create-hosts records it in the state.
   */
  nodes: InventoryHost[];
  prepare: ProviderTask;
  /** Absent for providers that create no machines (static). */
  createNetwork?: ProviderTask;
  createHosts?: ProviderTask;
  /**
   * Between create-hosts and wait-for-hosts: a provider's work on machines it created before
   * they are waited for (libvirt: the Windows golden image, made from the first Windows guest).
   */
  goldenImage?: ProviderTask;
  /** How long wait-for-hosts waits for a node to answer. */
  waitTimeoutSec: number;
  /**
   * Steps wait-for-hosts runs for a node before connecting to it, delegated to a provider host
   * (a Windows guest's unattended install, watched from its hypervisor).
   */
  beforeConnectSteps?: PlanStep[];
  /** Steps wait-for-hosts runs after the connection answers (cloud-init finishing...). */
  waitSteps: PlanStep[];
}

/** What planning needs besides the spec. */
export interface ProviderContext {
  versions: Versions;
  /** The cluster directory on the machine running kubemix (the cluster SSH key lives there). */
  clusterDir: string;
  /** The cluster's SSH public key, when the provider logs in to machines it made with it. */
  publicKey?: string;
}

/** What teardown works from: the resources the state recorded. */
export interface TeardownInput {
  resources: readonly ProviderResource[];
  /** Also remove cached base images and ISOs no other cluster uses (`down --purge-images`). */
  purgeImages: boolean;
}

/** The provider part of `kubemix down`, in order: every task needs the one before. */
export interface ProviderTeardown {
  tasks: Array<ProviderTask & { name: 'destroy-hosts' | 'destroy-network' | 'check-leaks' }>;
}

/**
 * A source of machines, as the planner sees it: it turns node requests into hosts and provider
 * tasks (prepare-provider, create-network, create-hosts; destroy and leak check for `down`).
 * The tasks' steps are modules the engine runs like any other, on the hosts the provider names;
 * they record every resource in the state (intent before each create call) through the run's
 * ledger, and may assign hosts what only creating them tells (addresses, credentials).
 */
export interface Provider {
  readonly type: ClusterSpec['provider']['type'];
  plan(spec: ClusterSpec, nodes: NodeRequest[], context: ProviderContext): ProviderPlan;
  teardown(spec: ClusterSpec, input: TeardownInput, context: ProviderContext): ProviderTeardown;
  /**
   * A read-only step that reports what of the cluster exists now on each provider host (data
   * `found: [{ kind, name }]`), for `kubemix status`; undefined when the provider makes nothing.
   */
  inspect(spec: ClusterSpec, context: ProviderContext): ProviderTask | undefined;
}
