import type { ModuleRunResult } from '../executor/run-module.js';
import type { Transport } from '../transport/types.js';
import type { CommandResult } from '../types/command-result.js';
import { failedResult } from '../types/command-result.js';
import type { RunEvent, StepStatus } from '../types/events.js';
import type { InventoryHost } from '../types/inventory.js';
import type { Plan, PlanStep, PlanTask } from '../types/plan.js';
import type { ProvisionLedger } from '../types/provision.js';
import { decisiveResult, describeFailure, formatStepFailure, tailLines } from './failure.js';
import { lineBuffer } from './line-buffer.js';
import { hiddenCommandOf, hiddenFailureReason, hiddenResult } from './no-log.js';
import { registeredValue } from './outputs.js';
import type { Redactor } from './redactor.js';
import type { StepExecutor, StepFailure, StepRequest } from './types.js';

/** Everything one step run needs from the engine. */
export interface StepRunContext {
  plan: Plan;
  task: PlanTask;
  step: PlanStep;
  host: InventoryHost;
  transport: Transport;
  /** Template context (see OutputStore.context). */
  templateContext: Record<string, unknown>;
  executeStep: StepExecutor;
  redactor: Redactor;
  /** Emits an event (the engine redacts it). */
  emit: (event: DistributiveOmit<RunEvent, 'time'>) => void;
  /** Aborted on Ctrl-C. */
  signal: AbortSignal;
  /** Saves a registered output. */
  register: (host: string, name: string, value: unknown, secret: boolean) => Promise<void>;
  /** Another plan host and its pooled transport (delegate_to). */
  delegate: StepRequest['delegate'];
  /** The state's provider records, handed to provider modules. */
  ledger?: ProvisionLedger;
}

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

/**
 * How a step ended on one host. `failed` with ignoreErrors set is reported as `ignored`;
 * `skipped` is a step whose `when` was false (it ran nothing).
 */
export type StepRunStatus = 'ok' | 'changed' | 'skipped' | 'failed' | 'ignored' | 'interrupted';

/** What runStep reports to the host runner. */
export interface StepRunResult {
  status: StepRunStatus;
  /** Set when status is failed or ignored. Redacted. */
  failure?: StepFailure;
  /** One-line failure message, redacted. */
  message?: string;
}

/**
 * Runs one step on one host: calls the step executor once (it renders the args as written and runs
 * the step's attempts, retries and time limit included, in the playbook attempt loop,
 * runWithRetries), emits step-start/step-output/step-progress/step-retry/step-end and registers
 * the output. Never throws for a failure of the step.
 */
export async function runStep(ctx: StepRunContext): Promise<StepRunResult> {
  const { step, task, host } = ctx;
  const base = { task: task.name, host: host.name, step: step.name };
  ctx.emit({ type: 'step-start', ...base, attempt: 1 });
  const run = await runExecutor(ctx, step);
  if (run.kind === 'interrupted') {
    ctx.emit({ type: 'step-end', ...base, status: 'failed', result: shown(ctx, run.result) });
    return { status: 'interrupted', message: `interrupted: task ${task.name}, host ${host.name}` };
  }
  if (run.kind === 'unrunnable') return fail(ctx, run.result, undefined);
  const { outcome, result } = run;
  if (!outcome.failed) {
    if (step.register)
      await ctx.register(host.name, step.register, registeredValue(outcome), step.secret === true);
    const status: StepStatus = outcome.skipped ? 'skipped' : outcome.changed ? 'changed' : 'ok';
    ctx.emit({ type: 'step-end', ...base, status, result: shown(ctx, result) });
    return { status };
  }
  if (step.register && step.ignoreErrors) {
    await ctx.register(host.name, step.register, registeredValue(outcome), step.secret === true);
  }
  return fail(ctx, result, outcome);
}

type ExecutorRun =
  | { kind: 'done'; outcome: ModuleRunResult; result: CommandResult }
  | { kind: 'unrunnable'; result: CommandResult }
  | { kind: 'interrupted'; result: CommandResult };

async function runExecutor(ctx: StepRunContext, step: PlanStep): Promise<ExecutorRun> {
  const started = performance.now();
  const base = { task: ctx.task.name, host: ctx.host.name, step: step.name };
  const output = lineBuffer((stream, data) => ctx.emit({ type: 'step-output', ...base, stream, data }));
  try {
    const outcome = await ctx.executeStep({
      plan: ctx.plan,
      task: ctx.task,
      step,
      host: ctx.host,
      transport: ctx.transport,
      vars: ctx.templateContext,
      signal: ctx.signal,
      onOutput: step.secret ? () => undefined : output.push,
      onProgress: step.secret
        ? () => undefined
        : (message) => ctx.emit({ type: 'step-progress', ...base, message }),
      onRetry: ({ attempt, delayMs, result }) => {
        // The failed attempt's output comes before its retry, as it did on the wire.
        output.flush();
        ctx.emit({ type: 'step-retry', ...base, attempt, delayMs, result: shown(ctx, result) });
      },
      delegate: ctx.delegate,
      ...(ctx.ledger ? { ledger: ctx.ledger } : {}),
    });
    output.flush();
    const decisive = decisiveResult(outcome) ?? summaryResult(ctx, step, outcome);
    // Events show how long the step took: a module that waits between commands (reboot,
    // wait_for) takes longer than its last command.
    const result = {
      ...decisive,
      durationMs: Math.max(decisive.durationMs, Math.round(performance.now() - started)),
    };
    if (ctx.signal.aborted) return { kind: 'interrupted', result };
    return { kind: 'done', outcome, result };
  } catch (error) {
    output.flush();
    const result = failedResult(`${step.module} ${step.name}`, (error as Error).message, 0, ctx.host.name);
    if (ctx.signal.aborted) return { kind: 'interrupted', result };
    return { kind: 'unrunnable', result };
  }
}

/** A result for a module run that ran no command (assert, set_fact...). */
function summaryResult(ctx: StepRunContext, step: PlanStep, outcome: ModuleRunResult): CommandResult {
  return {
    command: step.module,
    exitCode: outcome.failed ? null : 0,
    stdout: outcome.failed ? '' : (outcome.msg ?? ''),
    stderr: outcome.failed ? (outcome.msg ?? 'failed') : '',
    durationMs: 0,
    failed: outcome.failed,
    timedOut: false,
    host: ctx.host.name,
  };
}

/** The result as events may show it: redacted, or hidden whole for a no_log (secret) step. */
function shown(ctx: StepRunContext, result: CommandResult): CommandResult {
  return ctx.step.secret ? hiddenResult(result) : ctx.redactor.result(result);
}

function fail(ctx: StepRunContext, raw: CommandResult, outcome: ModuleRunResult | undefined): StepRunResult {
  const { task, host, step } = ctx;
  const result = step.secret
    ? { ...shown(ctx, raw), command: hiddenCommandOf(step.module) }
    : shown(ctx, raw);
  // Without an outcome the step never ran (the executor threw): stderr
  // holds that error, not output.
  const error = outcome ? describeFailure(outcome, raw) : raw.stderr || 'failed';
  const reason = step.secret
    ? hiddenFailureReason(
        error,
        [outcome?.data ?? {}, ...(outcome?.results ?? []).map((r) => r.stdout)],
        ctx.redactor,
      )
    : error;
  const stderrTail = tailLines(result.stderr);
  const failure: StepFailure = {
    task: task.name,
    host: host.name,
    step: step.name,
    command: result.command,
    exitCode: result.exitCode,
    // A no_log step's stderr stays hidden: its redacted error stands in, as for a step that never ran.
    stderrTail: outcome && !step.secret ? stderrTail : ctx.redactor.text(reason),
    ...(outcome?.inputError ? { inputError: true } : {}),
  };
  const message = ctx.redactor.text(
    formatStepFailure({
      task: task.name,
      host: host.name,
      step: step.name,
      command: result.command,
      reason,
      ...(outcome && stderrTail && !reason.includes(stderrTail) ? { stderrTail } : {}),
    }),
  );
  ctx.emit({ type: 'step-end', task: task.name, host: host.name, step: step.name, status: 'failed', result });
  return { status: step.ignoreErrors ? 'ignored' : 'failed', failure, message };
}
