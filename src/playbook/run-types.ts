import type { Redactor } from '../engine/redactor.js';
import type { TransportFactory, TransportPool } from '../executor/transport-pool.js';
import type { RunEvent, RunEventListener, RunStatus, StepStatus } from '../types/events.js';
import type { InventoryHost } from '../types/inventory.js';
import type { HostStats } from './recap.js';
import type { Inventory, Play, Playbook, Task } from './types.js';

/** Options of {@link runPlaybook}. */
export interface RunPlaybookOptions {
  /** A playbook file, or a playbook already parsed. */
  playbook: string | Playbook;
  inventory: Inventory;
  /** `-e` variables (highest precedence); see parseExtraVars. */
  extraVars?: Record<string, unknown>;
  /** `--limit` host pattern. */
  limit?: string;
  /** `--check`: dry run. */
  check?: boolean;
  /** Hosts worked on at once (Ansible's default is 5). */
  forks?: number;
  tags?: string[];
  skipTags?: string[];
  /** Makes transports for hosts; kubemix's playbook code never imports a wire. */
  transports: TransportFactory;
  /** Share connections with the caller (otherwise a pool is made and closed here). */
  pool?: TransportPool;
  onEvent?: RunEventListener;
  signal?: AbortSignal;
  /** Default time limit of each command, ms. */
  timeoutMs?: number;
}

/** One task on one host, for the CLI's task list. */
export interface TaskRecord {
  play: string;
  task: string;
  host: string;
  status: StepStatus;
  ignored: boolean;
  msg?: string;
  /** Where the commands ran, with delegate_to. */
  delegatedTo?: string;
}

/** What a playbook run did. */
export interface PlaybookResult {
  status: RunStatus;
  /** ansible-playbook's exit code: 0 ok, 2 failed hosts, 4 unreachable hosts (wins over 2), 99 interrupted. */
  exitCode: number;
  /** PLAY RECAP counters per host, in the order hosts were first targeted. */
  stats: Record<string, HostStats>;
  records: TaskRecord[];
  /** Variables set by set_fact, per host. */
  facts: Record<string, Record<string, unknown>>;
  durationMs: number;
}

type DistributiveOmit<T, K extends keyof T> = T extends unknown ? Omit<T, K> : never;

/** A RunEvent as the run code writes it: the emitter stamps the time. */
export type UntimedRunEvent = DistributiveOmit<RunEvent, 'time'>;

/** What every stage of one playbook run shares: its inputs, what it learnt so far, and its event sink. */
export interface PlaybookRun {
  options: RunPlaybookOptions;
  playbook: Playbook;
  inventory: Inventory;
  extraVars: Record<string, unknown>;
  forks: number;
  pool: TransportPool;
  redactor: Redactor;
  /** Stamps, redacts and hands an event to the listener. */
  emit: (event: UntimedRunEvent) => void;
  stats: Record<string, HostStats>;
  records: TaskRecord[];
  /** set_fact values, per host. */
  facts: Record<string, Record<string, unknown>>;
  /** `register:` values, per host. */
  registered: Record<string, Record<string, unknown>>;
  /** Hosts out of the run (failed or unreachable): later plays skip them too. */
  dropped: Set<string>;
  hostByName: Map<string, InventoryHost>;
  /** The `groups` magic variable. */
  groupsVar: Record<string, string[]>;
  /** `group_names` of each host. */
  groupNames: Map<string, string[]>;
  /** Hosts `--limit` lets through, when given. */
  limitHosts?: Set<string>;
}

/** One play of a run: who it runs on and which handlers were notified. */
export interface PlayRun {
  run: PlaybookRun;
  play: Play;
  /** Every host of the play (`ansible_play_hosts_all`). */
  hosts: InventoryHost[];
  /** Hosts still in the play (`ansible_play_hosts`); failed and unreachable ones leave. */
  active: InventoryHost[];
  /** Variables of the play's vars_files. */
  playVars: Record<string, unknown>;
  /** Handlers notified, with the hosts that notified them. */
  notified: Map<Task, Set<string>>;
}
