import type { TransportFactory, TransportPool } from '../executor/transport-pool.js';
import type { RunEvent, RunEventListener, RunStatus, StepStatus } from '../types/events.js';
import type { HostStats } from './recap.js';
import type { Inventory, Playbook } from './types.js';

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
