import type { HostOs, InventoryHost } from './inventory.js';

/** The named phases of a cluster build, mirroring Kubeinit's where they fit. */
export const TASK_NAMES = [
  'prepare-provider',
  'create-network',
  'create-hosts',
  'golden-image',
  'wait-for-hosts',
  'prepare-linux',
  'init-control-plane',
  'install-flannel',
  'join-linux-workers',
  'prepare-windows',
  'join-windows-workers',
  'install-windows-networking',
  'verify',
  'cleanup',
] as const;

export type ClusterTaskName = (typeof TASK_NAMES)[number];

/**
 * One step of a task: a module invocation, Ansible style. Modules turn `args` into commands;
 * the engine runs them on every host of the task.
 */
export interface PlanStep {
  /** Human name, shown in the task list. */
  name: string;
  /** Module name (`command`, `shell`, `win_shell`, `wait_for_connection`, ...). */
  module: string;
  /** Module arguments. Strings may hold `{{ }}` templates resolved at run time. */
  args: Record<string, unknown>;
  /**
   * Extra attempts after the first failure (or lost connection), for steps built in code; run by
   * the playbook attempt loop (runWithRetries), as a playbook step's retries/until are.
   */
  retries?: number;
  /** Base delay between attempts (default 1 s); doubled each attempt, capped at max(60 s, the base). */
  delayMs?: number;
  /** Time limit of one attempt; an attempt that outlives it ends the step failed, as Ansible's `timeout`. */
  timeoutMs?: number;
  /** Save the step's stdout under this name in the state file's outputs for later tasks. */
  register?: string;
  /** The registered output is a secret: kept out of events, logs and state; stored 0600 apart. */
  secret?: boolean;
  /** Run on the first host of the task only. */
  runOnce?: boolean;
  /**
   * Ansible's `throttle`: at most this many of the task's hosts run the step at once (0: no
   * limit beyond forks; ignored with runOnce, as in Ansible). A string is rendered per host.
   */
  throttle?: number | string;
  /** A failure does not fail the task. */
  ignoreErrors?: boolean;
  /** Run only on hosts of this OS (tasks such as cleanup span Linux and Windows nodes). */
  os?: HostOs;
  /**
   * The Ansible keywords of a step that came from a playbook file (when, loop, until,
   * changed_when, become, ...), kept as written; the playbook task executor interprets them.
   */
  keywords?: Record<string, unknown>;
}

/** A node of the task graph. */
export interface PlanTask {
  /** kebab-case name; the unit of --stop-after/--stop-before/--from. */
  name: string;
  description: string;
  /** Names of tasks that must be done first. */
  needs: string[];
  /** Inventory names of the hosts the steps run on (`localhost` is the machine running kubemix). */
  hosts: string[];
  steps: PlanStep[];
  /** False while the task is not built yet: the engine fails it with "not implemented yet". */
  implemented: boolean;
}

/** What `kubemix plan` prints and `kubemix up` runs: pure data. */
export interface Plan {
  cluster: string;
  /** Hosts known when planning (static hosts, or the hosts a provider will create). */
  hosts: InventoryHost[];
  tasks: PlanTask[];
  /** Variables available to step templates (versions, CIDRs, VXLAN settings...). */
  vars: Record<string, unknown>;
}
