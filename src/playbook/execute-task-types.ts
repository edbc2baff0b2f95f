import type { OutputChunk, Transport } from '../transport/types.js';
import type { CommandResult } from '../types/command-result.js';
import type { StepStatus } from '../types/events.js';
import type { InventoryHost } from '../types/inventory.js';
import type { ProvisionLedger } from '../types/provision.js';
import type { StepRetry } from '../types/step.js';
import type { Task } from './types.js';

/** Options of {@link executeTask}. */
export interface ExecuteTaskOptions {
  task: Task;
  /** The host the task is for (its variables are `vars`). */
  host: InventoryHost;
  /** Connected transport of the host the commands run on (the delegate, with delegate_to). */
  transport: Transport;
  /** The host's variable scope, task vars included (see mergeVars). */
  vars: Record<string, unknown>;
  /** The host commands run on, when it differs from `host` (delegate_to). */
  delegateHost?: InventoryHost;
  /** --check: modules report what they would do. */
  check?: boolean;
  signal?: AbortSignal;
  /** Live output (never called for no_log tasks). */
  onOutput?: (chunk: OutputChunk) => void;
  /** What a long wait sees (never called for no_log tasks). */
  onProgress?: (message: string) => void;
  /**
   * Called after each failed attempt that another follows (retries/until), before the wait:
   * `attempt` is the 1-based attempt that failed, `delayMs` the wait before the next one.
   */
  onRetry?: (retry: StepRetry) => void;
  /** Default time limit of each command, ms. */
  timeoutMs?: number;
  /** The state's provider records (provider modules inside kubemix up/down). */
  ledger?: ProvisionLedger;
}

/** What one task did on one host. */
export interface TaskOutcome {
  status: StepStatus;
  changed: boolean;
  failed: boolean;
  skipped: boolean;
  unreachable: boolean;
  /** Failed, but ignore_errors let the host carry on. */
  ignored: boolean;
  msg?: string;
  /** The value `register:` stores (Ansible's result dict: changed, failed, rc, stdout, results...). */
  registered: Record<string, unknown>;
  /** Variables set by set_fact. */
  facts: Record<string, unknown>;
  /** Handlers to notify (the task changed something). */
  notify: boolean;
  rebootRequired: boolean;
  /** Every command result of the last attempt (of each loop item's last attempt), in order. */
  results: CommandResult[];
  /** The result shown in events: the last command, or a summary for modules that ran none. */
  lastResult: CommandResult;
  attempts: number;
}

/** What one run of the module did (one attempt, one loop item), before it becomes a TaskOutcome. */
export interface SingleRun {
  registered: Record<string, unknown>;
  results: CommandResult[];
  facts: Record<string, unknown>;
  unreachable: boolean;
  rebootRequired: boolean;
}
