import type { CommandResult } from './command-result.js';
import type { InventoryHost } from './inventory.js';
import type { ModuleRunResult } from './module-outcome.js';
import type { Plan, PlanStep, PlanTask } from './plan.js';
import type { ProvisionLedger } from './provision.js';
import type { OutputChunk, Transport } from './transport.js';

/**
 * A failed attempt that another follows (retries/until): what the attempt loop reports before it
 * waits, and what the engine's `step-retry` event carries.
 */
export interface StepRetry {
  /** The attempt that failed (1-based). */
  attempt: number;
  /** The wait before the next attempt, ms. */
  delayMs: number;
  /** The failed attempt's last command (or a summary of a module that ran none). Not redacted. */
  result: CommandResult;
}

/** One step on one host, all its attempts: what a {@link StepExecutor} is given. */
export interface StepRequest {
  plan: Plan;
  task: PlanTask;
  /** The step with its `args` already rendered (templates resolved). */
  step: PlanStep;
  host: InventoryHost;
  /** The host's pooled, connected transport. */
  transport: Transport;
  /** The template context the args were rendered with (vars, outputs, host). */
  vars: Record<string, unknown>;
  /** Aborted on Ctrl-C: pass it to every command. */
  signal: AbortSignal;
  /** Live output; the engine turns it into redacted `step-output` events. */
  onOutput: (chunk: OutputChunk) => void;
  /** What a long wait sees (one line, sent when it changes); the engine emits redacted `step-progress` events. */
  onProgress: (message: string) => void;
  /** A failed attempt another follows; the engine emits a redacted `step-retry` event. */
  onRetry: (retry: StepRetry) => void;
  /** Another plan host and its pooled transport, for delegate_to. Throws for an unknown host. */
  delegate: (hostName: string) => Promise<{ host: InventoryHost; transport: Transport }>;
  /** The state's provider records, for provider modules (see ProvisionLedger). */
  ledger?: ProvisionLedger;
}

/**
 * Runs one step on one host, its attempts included (the step's `retries`/`delayMs`/`timeoutMs`
 * and its retries/until keywords: the playbook attempt loop, runWithRetries), and reports the
 * module outcome of the last attempt with every command result. A failed command is a result
 * (`failed: true`). Throwing means the step cannot run at all (unknown module): the engine fails it.
 */
export type StepExecutor = (request: StepRequest) => Promise<ModuleRunResult>;
