import type { InventoryHost } from './inventory.js';
import type { ModuleRunResult } from './module-outcome.js';
import type { Plan, PlanStep, PlanTask } from './plan.js';
import type { ProvisionLedger } from './provision.js';
import type { OutputChunk, Transport } from './transport.js';

/** One attempt of one step on one host: what a {@link StepExecutor} is given. */
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
  /** 1-based attempt number. */
  attempt: number;
  /** Aborted on Ctrl-C and when the attempt's time limit passes: pass it to every command. */
  signal: AbortSignal;
  /** Time limit of this attempt (the step's `timeoutMs`), for commands that set none. */
  timeoutMs?: number;
  /** Live output; the engine turns it into redacted `step-output` events. */
  onOutput: (chunk: OutputChunk) => void;
  /** What a long wait sees (one line, sent when it changes); the engine emits redacted `step-progress` events. */
  onProgress: (message: string) => void;
  /** Another plan host and its pooled transport, for delegate_to. Throws for an unknown host. */
  delegate: (hostName: string) => Promise<{ host: InventoryHost; transport: Transport }>;
  /** The state's provider records, for provider modules (see ProvisionLedger). */
  ledger?: ProvisionLedger;
}

/**
 * Runs one attempt of a step and reports the module outcome with every command result.
 * A failed command is a result (`failed: true`), which the engine may retry. Throwing means the
 * step cannot run at all (unknown module, bad arguments): the engine fails it without retrying.
 */
export type StepExecutor = (request: StepRequest) => Promise<ModuleRunResult>;
