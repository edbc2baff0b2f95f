import { ConnectionError, InternalError } from '../errors/index.js';
import { runModule } from '../executor/run-module.js';
import { findModule } from '../modules/registry.js';
import { evaluateCondition, renderValue } from '../template/index.js';
import type { ExecRequest, Transport } from '../transport/types.js';
import type { ExecuteTaskOptions, SingleRun } from './execute-task-types.js';
import { dropOmitted } from './omit.js';
import { failure } from './task-outcome.js';
import { withVars } from './vars.js';

/** Runs the module once with rendered arguments, then applies changed_when / failed_when. */
export async function runOnce(
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
  const become: TaskBecome = task.become ? (task.becomeUser ? { user: task.becomeUser } : true) : undefined;
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

/** A task's `become`: off, on (root), or as a user. */
export type TaskBecome = ExecRequest['become'];

/** Adds the task's become and environment to every command a module runs. */
export function taskTransport(
  transport: Transport,
  become: TaskBecome,
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
