import type { ModuleRunResult } from '../executor/run-module.js';
import type { TransportFactory } from '../executor/transport-pool.js';
import type { OutputChunk, Transport } from '../transport/types.js';
import type { RunEvent, RunEventListener, RunStatus, TaskStatus } from '../types/events.js';
import type { InventoryHost } from '../types/inventory.js';
import type { Plan, PlanStep, PlanTask } from '../types/plan.js';

/** Why a task did not run (the `task-skip` reasons, plus `interrupted` for Ctrl-C). */
export type TaskSkipReason = Extract<RunEvent, { type: 'task-skip' }>['reason'];

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
}

/**
 * Runs one attempt of a step and reports the module outcome with every command result.
 * A failed command is a result (`failed: true`), which the engine may retry. Throwing means the
 * step cannot run at all (unknown module, bad arguments): the engine fails it without retrying.
 */
export type StepExecutor = (request: StepRequest) => Promise<ModuleRunResult>;

/** Resolves templates in step arguments. `vars` is the context: `{ vars, outputs, host, hosts }`. */
export type TemplateRenderer = (value: unknown, vars: Record<string, unknown>) => unknown;

/** Options of {@link runPlan}: one object, as every kubemix API. */
export interface RunPlanOptions {
  plan: Plan;
  /** Directory holding state.json, secrets.json and the lock. Created when missing. */
  clusterDir: string;
  /** Makes transports; injected so the engine never imports a wire. */
  transports: TransportFactory;
  /** At most this many (task, host) units run at once, across all tasks. Default 10. */
  forks?: number;
  /** Run this task and the tasks it needs, then stop. */
  stopAfter?: string;
  /** Run the tasks this task needs, then stop before it starts. */
  stopBefore?: string;
  /** Redo this task and every task that depends on it, even when the state says done. */
  from?: string;
  onEvent?: RunEventListener;
  /** Aborting (Ctrl-C) kills running commands and ends the run as `interrupted`. */
  signal?: AbortSignal;
  /** Runs one step attempt. Default: the module registry + runModule. */
  executeStep?: StepExecutor;
  /** Template hook for step args. Default: `{{ path.to.value }}` lookups only. */
  render?: TemplateRenderer;
  /** Clock, for tests. */
  now?: () => Date;
}

/** A step that failed, for the end-of-run report. Secrets are already redacted. */
export interface StepFailure {
  task: string;
  host: string;
  step: string;
  /** What ran (CommandResult.command), or a description such as `connect <host>`. */
  command: string;
  exitCode: number | null;
  /** Last lines of stderr (or the failure message when there was no command). */
  stderrTail: string;
}

/** How one task ended in this run. */
export interface TaskSummary {
  status: TaskStatus;
  /** Why it did not run (skipped or left pending). */
  reason?: TaskSkipReason | 'interrupted';
  /** Failure message, redacted. */
  error?: string;
  durationMs?: number;
}

/** What {@link runPlan} returns. Failures of tasks are reported here, not thrown. */
export interface RunSummary {
  status: RunStatus;
  durationMs: number;
  /** Every task of the plan, by name. */
  tasks: Record<string, TaskSummary>;
  /** First task that failed. */
  failedTask?: string;
  /** One-line message of the first failure (redacted). */
  error?: string;
  failures: StepFailure[];
  /** Tasks that were done in the state but changed in the plan, so they ran again. */
  changedTasks: string[];
}
