import { ConnectionError } from '../errors/index.js';
import type { TransportPool } from '../executor/transport-pool.js';
import type { Transport } from '../transport/types.js';
import { failedResult } from '../types/command-result.js';
import type { InventoryHost } from '../types/inventory.js';
import type { PlanStep } from '../types/plan.js';
import { formatStepFailure } from './failure.js';
import type { OutputStore } from './outputs.js';
import { runStep, type StepRunContext } from './run-step.js';
import { type StepThrottles, THROTTLE_NOT_INTEGER, throttleValue } from './throttle.js';
import type { StepFailure } from './types.js';

/** How a (task, host) unit ended. */
export interface HostRunResult {
  status: 'ok' | 'failed' | 'unreachable' | 'interrupted';
  failure?: StepFailure;
  message?: string;
}

/**
 * Shared by the hosts of one task: `runOnce` steps run on the first host only; the other hosts
 * wait at that step for its outcome (they may need what it registered) and stop if it failed.
 */
export class RunOnceGate {
  private readonly gates = new Map<number, { promise: Promise<boolean>; resolve: (ok: boolean) => void }>();

  private gate(index: number) {
    let gate = this.gates.get(index);
    if (!gate) {
      let resolve: (ok: boolean) => void = () => undefined;
      const promise = new Promise<boolean>((r) => {
        resolve = r;
      });
      gate = { promise, resolve };
      this.gates.set(index, gate);
    }
    return gate;
  }

  /** Called by the first host when it has run (or given up on) the runOnce step at `index`. */
  settle(index: number, ok: boolean): void {
    this.gate(index).resolve(ok);
  }

  /** Resolves every runOnce step the first host never reached as failed. */
  settleRest(indexes: number[]): void {
    for (const index of indexes) this.gate(index).resolve(false);
  }

  /** Waits for the first host's outcome of the runOnce step at `index`. */
  wait(index: number): Promise<boolean> {
    return this.gate(index).promise;
  }
}

/** What runHost needs besides the per-step context. */
export interface HostRunContext
  extends Omit<StepRunContext, 'step' | 'transport' | 'templateContext' | 'delegate'> {
  pool: TransportPool;
  outputs: OutputStore;
  /** Inventory host by name, with what providers assigned during the run. */
  hosts: Map<string, InventoryHost>;
  /** Position of the host in the task's host list (0 runs the runOnce steps). */
  hostIndex: number;
  gate: RunOnceGate;
  /** The task's step throttles, shared by its hosts (Ansible's `throttle`). */
  throttles: StepThrottles;
}

/**
 * The first step that runs on the host's own connection: steps for another OS and steps
 * delegated to another host (a provider watching the machine from outside) do not use it.
 */
function firstOwnStep(steps: readonly PlanStep[], host: InventoryHost): PlanStep | undefined {
  return steps.find(
    (step) => (step.os === undefined || step.os === host.os) && !step.keywords?.['delegateTo'],
  );
}

/** Connects to a host (pooled) and runs the task's steps on it in order. Never throws for a failure. */
export async function runHost(ctx: HostRunContext): Promise<HostRunResult> {
  const { task, host } = ctx;
  const runOnceIndexes = task.steps.flatMap((step, index) => (step.runOnce ? [index] : []));
  try {
    if (ctx.signal.aborted) return { status: 'interrupted' };
    // A machine kubemix just created may still be booting: a task that begins by waiting for it
    // connects in that step, with retries (failing here, before the wait, would defeat it).
    // Listed machines should answer now: they fail fast as unreachable.
    const connected =
      host.createdBy !== undefined && firstOwnStep(task.steps, host)?.module === 'wait_for_connection'
        ? { kind: 'ok' as const, transport: ctx.pool.unconnected(host) }
        : await untilStopped(connect(ctx.pool, host), ctx.signal);
    if (connected === 'stopped') return { status: 'interrupted' };
    if (connected.kind === 'error') {
      const message = ctx.redactor.text(connected.error);
      if (connected.unreachable)
        ctx.emit({ type: 'host-unreachable', task: task.name, host: host.name, message });
      const failure: StepFailure = {
        task: task.name,
        host: host.name,
        step: '(connect)',
        command: `connect ${host.name}`,
        exitCode: null,
        stderrTail: message,
      };
      const reason = connected.unreachable ? `host unreachable: ${message}` : message;
      const text = formatStepFailure({ task: task.name, host: host.name, step: '(connect)', reason });
      return { status: connected.unreachable ? 'unreachable' : 'failed', failure, message: text };
    }
    const { transport } = connected;
    for (const [index, step] of task.steps.entries()) {
      if (ctx.signal.aborted) return { status: 'interrupted' };
      if (step.os !== undefined && step.os !== host.os) continue;
      if (step.runOnce && ctx.hostIndex > 0) {
        if (!(await ctx.gate.wait(index))) return { status: 'ok' };
        continue;
      }
      const templateContext = ctx.outputs.context(ctx.plan.vars, host, ctx.hosts.values());
      const limit = stepThrottle(step);
      if (limit === undefined) return throttleFailure(ctx, step);
      const release = await ctx.throttles.of(index).acquire(limit);
      let result: Awaited<ReturnType<typeof runStep>>;
      try {
        if (ctx.signal.aborted) return { status: 'interrupted' };
        result = await runStep({
          ...ctx,
          delegate: (name) => delegateTo(ctx, name),
          step,
          transport,
          templateContext,
        });
      } finally {
        release();
      }
      if (step.runOnce) ctx.gate.settle(index, result.status !== 'failed' && result.status !== 'interrupted');
      if (result.status === 'interrupted') return { status: 'interrupted' };
      if (result.status === 'failed') return { status: 'failed', ...pick(result) };
    }
    return { status: 'ok' };
  } finally {
    if (ctx.hostIndex === 0) ctx.gate.settleRest(runOnceIndexes);
  }
}

/**
 * The step's throttle for this host: 0 for none (also for runOnce steps, which Ansible does not
 * throttle), undefined when it is not an integer. The step executor renders templates; the
 * engine reads the throttle as written.
 */
function stepThrottle(step: PlanStep): number | undefined {
  if (step.throttle === undefined || step.runOnce) return 0;
  return throttleValue(step.throttle);
}

/** The step fails before it starts, as Ansible fails a task whose throttle is not an integer. */
function throttleFailure(ctx: HostRunContext, step: PlanStep): HostRunResult {
  const { task, host } = ctx;
  const failure: StepFailure = {
    task: task.name,
    host: host.name,
    step: step.name,
    command: `throttle: ${String(step.throttle)}`,
    exitCode: null,
    stderrTail: THROTTLE_NOT_INTEGER,
  };
  ctx.emit({ type: 'step-start', task: task.name, host: host.name, step: step.name, attempt: 1 });
  ctx.emit({
    type: 'step-end',
    task: task.name,
    host: host.name,
    step: step.name,
    status: 'failed',
    result: failedResult(failure.command, THROTTLE_NOT_INTEGER, 0, host.name),
  });
  const message = formatStepFailure({
    task: task.name,
    host: host.name,
    step: step.name,
    reason: THROTTLE_NOT_INTEGER,
  });
  return step.ignoreErrors ? { status: 'ok' } : { status: 'failed', failure, message };
}

/** A plan host by name with its pooled transport: where delegate_to sends a step's commands. */
async function delegateTo(
  ctx: HostRunContext,
  name: string,
): Promise<{ host: InventoryHost; transport: Transport }> {
  const host = ctx.plan.hosts.some((h) => h.name === name) ? ctx.hosts.get(name) : undefined;
  if (!host)
    throw new ConnectionError(
      name,
      `delegate_to names a host that is not in the plan (hosts: ${ctx.plan.hosts.map((h) => h.name).join(', ')})`,
    );
  return { host, transport: await ctx.pool.get(host) };
}

function pick(result: {
  failure?: StepFailure;
  message?: string;
}): Pick<HostRunResult, 'failure' | 'message'> {
  return {
    ...(result.failure ? { failure: result.failure } : {}),
    ...(result.message ? { message: result.message } : {}),
  };
}

/**
 * The host's pooled transport, or why there is none: a ConnectionError means unreachable; any
 * other error (an unresolvable secret reference, an unsupported connection kind) is a failure.
 */
/**
 * `work`, or 'stopped' as soon as the run is stopped: Ctrl-C must not wait out an SSH handshake
 * or a WinRM login that the host never answers (the pool closes that connection when it ends).
 */
function untilStopped<T>(work: Promise<T>, signal: AbortSignal): Promise<T | 'stopped'> {
  if (signal.aborted) return Promise.resolve('stopped');
  let onAbort: (() => void) | undefined;
  const stopped = new Promise<'stopped'>((resolve) => {
    onAbort = () => resolve('stopped');
    signal.addEventListener('abort', onAbort, { once: true });
  });
  return Promise.race([work, stopped]).finally(() => {
    if (onAbort) signal.removeEventListener('abort', onAbort);
  });
}

async function connect(
  pool: TransportPool,
  host: InventoryHost,
): Promise<{ kind: 'ok'; transport: Transport } | { kind: 'error'; error: string; unreachable: boolean }> {
  try {
    return { kind: 'ok', transport: await pool.get(host) };
  } catch (error) {
    if (error instanceof ConnectionError) return { kind: 'error', error: error.message, unreachable: true };
    return {
      kind: 'error',
      error: error instanceof Error ? error.message : String(error),
      unreachable: false,
    };
  }
}
