import { providerFor } from '../provider/index.js';
import type { ClusterSpec } from '../spec/schema.js';
import type { InventoryHost } from '../types/inventory.js';
import type { Plan, PlanStep, PlanTask } from '../types/plan.js';
import type { KubeadmImages } from '../versions/buildable.js';
import type { Versions } from '../versions/versions.js';
import { LOCALHOST, nodeRequests } from './hosts.js';
import { planVars } from './plan-vars.js';
import {
  linuxDrafts,
  nodeRoles,
  providerDrafts,
  type TaskDraft,
  verifyDraft,
  windowsDrafts,
} from './task-drafts.js';

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

/** A draft's plan task: its steps looked up in the playbooks unless built in code. */
function planTask(draft: TaskDraft, playbooks: Readonly<Record<string, PlanStep[]>>): PlanTask {
  const steps = draft.provider
    ? draft.steps
    : (draft.steps ?? playbookSteps(draft.name, draft.hosts, playbooks));
  return {
    name: draft.name,
    description: draft.description,
    needs: draft.needs,
    hosts: draft.hosts.map((h) => h.name),
    steps: steps ?? [],
    implemented: steps !== undefined,
  };
}

/**
 * Turns a spec into the task graph `kubemix up` runs. Pure: same spec, same plan.
 *
 * Stages (src/plan/task-drafts.ts, src/plan/plan-vars.ts): the provider's tasks up to
 * wait-for-hosts, the Linux kubeadm tasks, the Windows ones, verify last; then the vars.
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
  const roles = nodeRoles(providerPlan.nodes);
  const drafts = [
    ...providerDrafts(providerPlan, roles.nodes),
    ...linuxDrafts(spec, roles),
    ...windowsDrafts(roles),
  ];
  drafts.push(verifyDraft(drafts, roles));
  const hosts = [...providerPlan.providerHosts, ...roles.nodes];
  return {
    cluster: spec.name,
    // localhost is a plan host wherever a task runs there (static and EC2 provider tasks).
    hosts: drafts.some((d) => d.hosts.includes(LOCALHOST)) ? [LOCALHOST, ...hosts] : hosts,
    tasks: drafts.map((draft) => planTask(draft, playbooks)),
    vars: planVars({ spec, versions, roles, clusterDir, playbookDir, kubeadmImages: options.kubeadmImages }),
  };
}
