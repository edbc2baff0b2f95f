import { ConnectionError, InternalError } from '../errors/index.js';
import { runModule } from '../executor/run-module.js';
import { findModule } from '../modules/registry.js';
import { evaluateCondition, renderValue } from '../template/index.js';
import type { OutputChunk, Transport } from '../transport/types.js';
import type { CommandResult } from '../types/command-result.js';
import type { StepStatus } from '../types/events.js';
import type { InventoryHost } from '../types/inventory.js';
import type { ProvisionLedger } from '../types/provision.js';
import type { Task } from './types.js';
import { withVars } from './vars.js';

/** Ansible's `omit` placeholder: a module argument rendered to this value is dropped. */
export const OMIT = '__omit_place_holder__kubemix';

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
  /** Called before each new attempt of retries/until. */
  onRetry?: (info: { attempt: number; delayMs: number; result: CommandResult }) => void;
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
  /** Every command result, in order. */
  results: CommandResult[];
  /** The result shown in events: the last command, or a summary for modules that ran none. */
  lastResult: CommandResult;
  attempts: number;
}

interface SingleRun {
  registered: Record<string, unknown>;
  results: CommandResult[];
  facts: Record<string, unknown>;
  unreachable: boolean;
  rebootRequired: boolean;
}

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve) => {
    if (signal?.aborted) return resolve();
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        resolve();
      },
      { once: true },
    );
  });

function dropOmitted(value: unknown): unknown {
  if (Array.isArray(value)) return value.filter((v) => v !== OMIT).map(dropOmitted);
  if (value && typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype) {
    return Object.fromEntries(
      Object.entries(value)
        .filter(([, v]) => v !== OMIT)
        .map(([k, v]) => [k, dropOmitted(v)]),
    );
  }
  return value;
}

/** Adds the task's become and environment to every command a module runs. */
function taskTransport(
  transport: Transport,
  become: ExecRequestBecome,
  env: Record<string, string> | undefined,
): Transport {
  if (become === undefined && env === undefined) return transport;
  return {
    host: transport.host,
    kind: transport.kind,
    connect: () => transport.connect(),
    close: () => transport.close(),
    put: (request) => transport.put(request),
    get: (request) => transport.get(request),
    exec: (request) => {
      const merged = { ...request };
      if (request.become === undefined && become !== undefined) merged.become = become;
      if (env !== undefined) merged.env = { ...env, ...request.env };
      return transport.exec(merged);
    },
  };
}
type ExecRequestBecome = boolean | { user?: string } | undefined;

function summary(task: Task, host: string, registered: Record<string, unknown>): CommandResult {
  const failed = registered['failed'] === true;
  const msg = typeof registered['msg'] === 'string' ? registered['msg'] : '';
  return {
    command: task.module,
    exitCode: failed ? 1 : 0,
    stdout: failed ? '' : msg,
    stderr: failed ? msg : '',
    durationMs: 0,
    failed,
    timedOut: false,
    host,
  };
}

function failure(msg: string): SingleRun {
  return {
    registered: { changed: false, failed: true, msg },
    results: [],
    facts: {},
    unreachable: false,
    rebootRequired: false,
  };
}

/** Runs the module once with rendered arguments, then applies changed_when / failed_when. */
async function runOnce(
  options: ExecuteTaskOptions,
  vars: Record<string, unknown>,
  check: boolean,
): Promise<SingleRun> {
  const { task } = options;
  const module = findModule(task.module);
  if (!module) return failure(`unknown module "${task.module}"`);
  let args: Record<string, unknown>;
  let env: Record<string, string> | undefined;
  try {
    args = dropOmitted(renderValue(task.args, vars)) as Record<string, unknown>;
    if (task.environment !== undefined) {
      const rendered = renderValue(task.environment, vars);
      if (!rendered || typeof rendered !== 'object' || Array.isArray(rendered))
        return failure('environment must be a mapping');
      env = Object.fromEntries(
        Object.entries(rendered).map(([k, v]) => [k, typeof v === 'string' ? v : JSON.stringify(v)]),
      );
    }
  } catch (error) {
    return failure(
      `The task includes an option with an undefined variable or a bad template. The error was: ${(error as Error).message}`,
    );
  }
  const become: ExecRequestBecome = task.become
    ? task.becomeUser
      ? { user: task.becomeUser }
      : true
    : undefined;
  const target = options.delegateHost ?? options.host;
  let outcome: Awaited<ReturnType<typeof runModule>>;
  try {
    const runOptions: Parameters<typeof runModule>[0] = {
      module,
      args,
      context: {
        host: target,
        os: target.os,
        vars,
        checkMode: check,
        ...(options.ledger ? { ledger: options.ledger } : {}),
      },
      transport: taskTransport(options.transport, become, env),
    };
    if (options.signal) runOptions.signal = options.signal;
    if (options.onOutput && !task.noLog) runOptions.onOutput = options.onOutput;
    if (options.onProgress && !task.noLog) runOptions.onProgress = options.onProgress;
    const timeoutMs = task.timeoutMs ?? options.timeoutMs;
    if (timeoutMs !== undefined) runOptions.timeoutMs = timeoutMs;
    outcome = await runModule(runOptions);
  } catch (error) {
    if (error instanceof ConnectionError) {
      return {
        registered: { changed: false, failed: true, unreachable: true, msg: error.message },
        results: [],
        facts: {},
        unreachable: true,
        rebootRequired: false,
      };
    }
    if (error instanceof InternalError || !(error instanceof Error)) throw error;
    // Bad arguments (TypeError from parseArgs) and unexpected output become a failed task, not a crash.
    return failure(error instanceof TypeError ? error.message : `${module.name}: ${error.message}`);
  }
  const registered: Record<string, unknown> = {
    ...(outcome.data ?? {}),
    changed: outcome.changed,
    failed: outcome.failed,
  };
  if (outcome.msg !== undefined) registered['msg'] = outcome.msg;
  if (outcome.data?.['skipped'] === true) registered['skipped'] = true;
  if (outcome.inputError) registered['input_error'] = true;
  const run: SingleRun = {
    registered,
    results: outcome.results,
    facts: outcome.facts ?? {},
    unreachable: false,
    rebootRequired: outcome.rebootRequired === true,
  };
  const bound = task.register ? withVars(vars, { [task.register]: registered }) : vars;
  try {
    if (task.changedWhen !== undefined) registered['changed'] = evaluateCondition(task.changedWhen, bound);
    if (task.failedWhen !== undefined) {
      const failedNow = evaluateCondition(task.failedWhen, bound);
      registered['failed'] = failedNow;
      if (failedNow && registered['msg'] === undefined) registered['msg'] = 'failed_when condition was true';
    }
  } catch (error) {
    registered['failed'] = true;
    registered['msg'] = `The conditional check failed. The error was: ${(error as Error).message}`;
  }
  return run;
}

/** Runs once, then again while `until` is false (or, without `until`, while it fails and retries remain). */
async function runWithRetries(
  options: ExecuteTaskOptions,
  vars: Record<string, unknown>,
  check: boolean,
): Promise<SingleRun & { attempts: number }> {
  const { task } = options;
  const hasUntil = task.until !== undefined;
  const retries = task.retries ?? (hasUntil ? 3 : 0);
  const maxAttempts = Math.max(1, retries + 1);
  let delayMs = (task.delay ?? (hasUntil ? 5 : 1)) * 1000;
  const results: CommandResult[] = [];
  for (let attempt = 1; ; attempt++) {
    const run = await runOnce(options, vars, check);
    results.push(...run.results);
    if (run.unreachable || run.registered['skipped'] === true) return { ...run, results, attempts: attempt };
    let done: boolean;
    if (hasUntil) {
      const bound = task.register ? withVars(vars, { [task.register]: run.registered }) : vars;
      try {
        done = evaluateCondition(task.until, bound);
      } catch (error) {
        run.registered['failed'] = true;
        run.registered['msg'] = `The conditional check failed. The error was: ${(error as Error).message}`;
        return { ...run, results, attempts: attempt };
      }
    } else done = run.registered['failed'] !== true;
    if (retries > 0) run.registered['attempts'] = attempt;
    if (done || attempt >= maxAttempts || options.signal?.aborted) {
      if (!done && hasUntil) {
        run.registered['failed'] = true;
        run.registered['msg'] =
          `${run.registered['msg'] ? `${run.registered['msg']}; ` : ''}until condition not met after ${attempt} attempts`;
      }
      return { ...run, results, attempts: attempt };
    }
    options.onRetry?.({
      attempt: attempt + 1,
      delayMs,
      result: run.results.at(-1) ?? summary(task, options.host.name, run.registered),
    });
    await sleep(delayMs, options.signal);
    delayMs *= task.backoff ?? 1;
  }
}

/**
 * Runs one task on one host: when, loop (with per-item when), retries/until, changed_when,
 * failed_when, ignore_errors, become, environment, check mode and register. Connection loss
 * (a ConnectionError) makes the host unreachable. The engine reuses this for plan steps.
 */
export async function executeTask(options: ExecuteTaskOptions): Promise<TaskOutcome> {
  const { task, vars } = options;
  const check = task.checkMode ?? options.check ?? false;
  const hostName = options.host.name;
  const finish = (
    run: Omit<SingleRun, 'facts'> & { facts?: Record<string, unknown>; attempts: number },
  ): TaskOutcome => {
    const r = run.registered;
    const skipped = r['skipped'] === true;
    const failed = r['failed'] === true;
    const changed = r['changed'] === true;
    const ignored = failed && !run.unreachable && task.ignoreErrors === true;
    const status: StepStatus = run.unreachable
      ? 'unreachable'
      : failed
        ? 'failed'
        : skipped
          ? 'skipped'
          : changed
            ? 'changed'
            : 'ok';
    const outcome: TaskOutcome = {
      status,
      changed,
      failed,
      skipped,
      unreachable: run.unreachable,
      ignored,
      registered: r,
      facts: run.facts ?? {},
      notify: changed && !failed,
      rebootRequired: run.rebootRequired,
      results: run.results,
      lastResult: run.results.at(-1) ?? summary(task, hostName, r),
      attempts: run.attempts,
    };
    if (typeof r['msg'] === 'string') outcome.msg = r['msg'];
    return outcome;
  };
  const skip = (reason: string) =>
    finish({
      registered: { changed: false, skipped: true, skip_reason: reason, false_condition: task.when },
      results: [],
      unreachable: false,
      rebootRequired: false,
      attempts: 0,
    });
  const conditionError = (error: unknown) =>
    finish({
      registered: {
        changed: false,
        failed: true,
        msg: `The conditional check '${String(task.when)}' failed. The error was: ${(error as Error).message}`,
      },
      results: [],
      unreachable: false,
      rebootRequired: false,
      attempts: 0,
    });

  if (task.loop === undefined) {
    try {
      if (task.when !== undefined && !evaluateCondition(task.when, vars))
        return skip('Conditional result was False');
    } catch (error) {
      return conditionError(error);
    }
    return finish(await runWithRetries(options, vars, check));
  }

  let items: unknown;
  try {
    items = renderValue(task.loop, vars);
  } catch (error) {
    return finish({
      registered: {
        changed: false,
        failed: true,
        msg: `cannot evaluate the loop: ${(error as Error).message}`,
      },
      results: [],
      unreachable: false,
      rebootRequired: false,
      attempts: 0,
    });
  }
  if (typeof items === 'string' && task.loopFlatten) items = [items];
  if (!Array.isArray(items)) {
    return finish({
      registered: {
        changed: false,
        failed: true,
        msg: `Invalid data passed to 'loop', it requires a list, got this instead: ${JSON.stringify(items)}`,
      },
      results: [],
      unreachable: false,
      rebootRequired: false,
      attempts: 0,
    });
  }
  if (task.loopFlatten) items = (items as unknown[]).flatMap((i) => (Array.isArray(i) ? i : [i]));
  const list = items as unknown[];
  const itemResults: Record<string, unknown>[] = [];
  const results: CommandResult[] = [];
  const facts: Record<string, unknown> = {};
  let rebootRequired = false;
  let attempts = 0;
  for (let index = 0; index < list.length; index++) {
    if (options.signal?.aborted) break;
    const item = list[index];
    const extra: Record<string, unknown> = { [task.loopVar]: item, ansible_loop_var: task.loopVar };
    if (task.indexVar) extra[task.indexVar] = index;
    const itemVars = withVars(vars, extra);
    let holds = true;
    try {
      holds = task.when === undefined || evaluateCondition(task.when, itemVars);
    } catch (error) {
      itemResults.push({
        [task.loopVar]: item,
        changed: false,
        failed: true,
        msg: `The conditional check failed. The error was: ${(error as Error).message}`,
      });
      continue;
    }
    if (!holds) {
      itemResults.push({
        [task.loopVar]: item,
        changed: false,
        skipped: true,
        skip_reason: 'Conditional result was False',
      });
      continue;
    }
    const run = await runWithRetries(options, itemVars, check);
    attempts += run.attempts;
    results.push(...run.results);
    Object.assign(facts, run.facts);
    rebootRequired ||= run.rebootRequired;
    itemResults.push({ ...run.registered, [task.loopVar]: item, ansible_loop_var: task.loopVar });
    if (run.unreachable)
      return finish({
        registered: {
          results: itemResults,
          changed: false,
          failed: true,
          unreachable: true,
          msg: run.registered['msg'],
        },
        results,
        facts,
        unreachable: true,
        rebootRequired,
        attempts,
      });
  }
  const anyFailed = itemResults.some((r) => r['failed'] === true);
  const registered: Record<string, unknown> = {
    results: itemResults,
    changed: itemResults.some((r) => r['changed'] === true),
    failed: anyFailed,
    msg: anyFailed ? 'One or more items failed' : 'All items completed',
  };
  if (itemResults.length > 0 && itemResults.every((r) => r['skipped'] === true)) registered['skipped'] = true;
  if (itemResults.length === 0) {
    registered['skipped'] = true;
    registered['skip_reason'] = 'No items in the list';
  }
  return finish({ registered, results, facts, unreachable: false, rebootRequired, attempts });
}
