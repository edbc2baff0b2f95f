import type { InventoryHost } from '../types/inventory.js';

/** Where a value came from in a YAML file, for error messages. */
export interface SourceLocation {
  file: string;
  line: number;
  column: number;
}

/** Conditions as written: a bare expression, a boolean, or a list that must all hold. */
export type Condition = string | boolean | Array<string | boolean>;

/** One task (or handler) of a play, parsed. Values keep their `{{ }}` templates until run time. */
export interface Task {
  /** Display name: `name:` or the module name, like Ansible. */
  name: string;
  /** Module name without the `ansible.builtin.` prefix. */
  module: string;
  /** Module arguments (free-form strings arrive as `_raw_params`). */
  args: Record<string, unknown>;
  when?: Condition;
  register?: string;
  /** `loop:` or `with_items:` (a template string or a list). */
  loop?: unknown;
  /** with_items flattens one level, as Ansible does. */
  loopFlatten?: boolean;
  loopVar: string;
  indexVar?: string;
  /** Extra attempts when `until` is false (or, without `until`, when the task failed). */
  retries?: number;
  /** Seconds between attempts (Ansible's `delay`, default 5 with `until`). */
  delay?: number;
  /**
   * Multiplies the delay after every attempt, capped at max(60 s, delay) (1 = fixed, Ansible's
   * behaviour; steps built in code use 2). Not a playbook keyword.
   */
  backoff?: number;
  /**
   * A lost connection (unreachable) is retried like a failure. Ansible instead ends the task at
   * once (task_executor.py lines 639-640 at v2.17.0); steps built in code that wait out a restart
   * (cloud-init restarting sshd, a Windows rename's reboot) need the retry. Not a playbook keyword.
   */
  retryUnreachable?: boolean;
  until?: Condition;
  changedWhen?: Condition;
  failedWhen?: Condition;
  ignoreErrors?: boolean;
  delegateTo?: string;
  runOnce?: boolean;
  environment?: Record<string, unknown> | string;
  become?: boolean;
  becomeUser?: string;
  notify: string[];
  /** Handler topics (`listen:`), handlers only. */
  listen: string[];
  tags: string[];
  /** Task-level `vars:`. */
  vars: Record<string, unknown>;
  /** `no_log`: output, command lines and results are hidden from events. */
  noLog?: boolean;
  /** `check_mode`: force (true) or disable (false) check mode for this task. */
  checkMode?: boolean;
  /**
   * Ansible's `timeout`, in ms: the time limit of each attempt (a timed-out attempt ends the task,
   * see runWithRetries), and of each command that sets none.
   */
  timeoutMs?: number;
  /** `throttle`: at most this many hosts run the task at once (an int, or a template rendered per host). */
  throttle?: number | string;
  /** Where the task was written. */
  location?: SourceLocation;
}

/** One play. */
export interface Play {
  name: string;
  /** Host pattern (`all`, `web:&db`, ...). */
  hosts: string;
  vars: Record<string, unknown>;
  varsFiles: string[];
  /** pre_tasks, tasks, post_tasks: handlers are flushed after each section, as in Ansible. */
  sections: Task[][];
  handlers: Task[];
  become?: boolean;
  becomeUser?: string;
  /** Accepted; kubemix gathers no facts, whatever the value. */
  gatherFacts: boolean;
  tags: string[];
  environment?: Record<string, unknown> | string;
  ignoreErrors?: boolean;
  /** `throttle` for every task of the play that sets none. */
  throttle?: number | string;
  location?: SourceLocation;
}

/** A parsed playbook file. */
export interface Playbook {
  /** Absolute path of the file (empty for a playbook parsed from text without a path). */
  path: string;
  /** Directory relative paths resolve against (`playbook_dir`). */
  dir: string;
  plays: Play[];
}

/** A group of an Ansible inventory. */
export interface InventoryGroup {
  name: string;
  /** Hosts listed directly in the group. */
  hosts: string[];
  children: string[];
  vars: Record<string, unknown>;
}

/** A parsed Ansible YAML inventory. */
export interface Inventory {
  /** Hosts in file order. */
  hosts: InventoryHost[];
  groups: Record<string, InventoryGroup>;
  /** Variables written on each host (without group variables). */
  hostVars: Record<string, Record<string, unknown>>;
  /** Group variables as written, by group. */
  groupVars: Record<string, Record<string, unknown>>;
  /** Things that work but deserve a line on stderr (inline passwords), one line each. */
  warnings?: string[];
}
