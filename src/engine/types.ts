import type { TransportFactory } from '../executor/transport-pool.js';
import type { RunEvent, RunEventListener, RunStatus, TaskStatus } from '../types/events.js';
import type { Plan } from '../types/plan.js';
import type { StepExecutor } from '../types/step.js';

export type { StepExecutor, StepRequest } from '../types/step.js';

/** Why a task did not run (the `task-skip` reasons, plus `interrupted` for Ctrl-C). */
export type TaskSkipReason = Extract<RunEvent, { type: 'task-skip' }>['reason'];

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
  /**
   * Runs one step attempt. The engine sits below the playbook layer, so the one executor users
   * run (the playbook task executor, which renders a step's templates itself) is injected:
   * `runClusterPlan` in src/cluster passes it; the engine passes step arguments as written.
   */
  executeStep: StepExecutor;
  /** Clock, for tests. */
  now?: () => Date;
  /**
   * Record provider resources in this cluster directory's state instead of the run's own
   * (`down` keeps its progress in teardown/ and records deletions in the build's state).
   */
  ledgerDir?: string;
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
  /** The module judged the failure to be bad input (exit code 2 rather than 1). */
  inputError?: boolean;
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
