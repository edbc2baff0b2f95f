import type { CallIo, Module, ModuleAction, ModuleContext } from '../modules/types.js';
import { abortableSleep as sleep } from '../timing/abortable-sleep.js';
import type { Transport } from '../transport/types.js';
import type { CommandResult } from '../types/command-result.js';
import { failedResult, succeededResult } from '../types/command-result.js';
import type { ModuleRunResult } from '../types/module-outcome.js';
import { privateGet } from './private-get.js';

/** Options for driving one module on one host. */
export interface RunModuleOptions {
  module: Module<unknown>;
  args: Record<string, unknown>;
  context: ModuleContext;
  transport: Transport;
  signal?: AbortSignal;
  /** Live output of exec actions. */
  onOutput?: (chunk: { stream: 'stdout' | 'stderr'; data: string }) => void;
  /** Time limit for each exec action that sets none. */
  timeoutMs?: number;
  /** What a long wait sees (progress actions). */
  onProgress?: (message: string) => void;
}

export type { ModuleRunResult } from '../types/module-outcome.js';

/** Drives a module's generator over a transport: the only place module actions touch a wire. */
export async function runModule(options: RunModuleOptions): Promise<ModuleRunResult> {
  const { module, context, signal } = options;
  const args = module.parseArgs(options.args);
  const run = module.run(args, context);
  const results: CommandResult[] = [];
  let next = run.next();
  while (!next.done) {
    if (signal?.aborted) {
      run.return({ changed: false, failed: true, msg: 'interrupted' });
      return { changed: false, failed: true, msg: 'interrupted', results };
    }
    const result = await perform(next.value, options);
    results.push(result);
    next = run.next(result);
  }
  return { ...next.value, results };
}

async function perform(action: ModuleAction, options: RunModuleOptions): Promise<CommandResult> {
  const { transport, signal } = options;
  switch (action.kind) {
    case 'exec': {
      const request: Parameters<Transport['exec']>[0] = { command: action.command };
      if (action.display !== undefined) request.display = action.display;
      if (action.stdin !== undefined) request.stdin = action.stdin;
      if (action.env !== undefined) request.env = action.env;
      if (action.cwd !== undefined) request.cwd = action.cwd;
      if (action.become !== undefined) request.become = action.become;
      const timeoutMs = action.timeoutMs ?? options.timeoutMs;
      if (timeoutMs !== undefined) request.timeoutMs = timeoutMs;
      if (signal !== undefined) request.signal = signal;
      if (options.onOutput !== undefined) request.onOutput = options.onOutput;
      return transport.exec(request);
    }
    case 'put':
      return transport.put(action);
    case 'get':
      return privateGet(transport, action);
    case 'sleep': {
      const started = Date.now();
      await sleep(action.ms, signal);
      return succeededResult(`sleep ${action.ms}ms`, Date.now() - started);
    }
    case 'reconnect':
      return reconnect(action, transport, signal);
    case 'call':
      return call(action, options);
    case 'record':
      return record(action, options);
    case 'progress':
      options.onProgress?.(action.message);
      return succeededResult('progress', 0);
  }
}

/** The longest one connect attempt of a reconnect may take before it is dropped and retried. */
export const CONNECT_ATTEMPT_MS = 60_000;

/**
 * `promise`, or a rejection with `message` once `ms` have passed, or as soon as the run is
 * stopped (Ctrl-C must not wait out a connect attempt). The promise itself keeps running.
 */
function withDeadline<T>(promise: Promise<T>, ms: number, message: string, signal?: AbortSignal): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(message)), ms);
    onAbort = () => reject(new Error('stopped'));
    if (signal?.aborted) onAbort();
    else signal?.addEventListener('abort', onAbort, { once: true });
  });
  promise.catch(() => undefined);
  return Promise.race([promise, deadline]).finally(() => {
    clearTimeout(timer);
    if (onAbort) signal?.removeEventListener('abort', onAbort);
  });
}

/**
 * Closes and reopens the connection until it succeeds or time runs out, doubling the wait up to
 * 10 s. Each attempt has its own deadline: one that never returns must not use up the whole wait.
 */
async function reconnect(
  action: Extract<ModuleAction, { kind: 'reconnect' }>,
  transport: Transport,
  signal?: AbortSignal,
): Promise<CommandResult> {
  const started = Date.now();
  const command = `reconnect ${transport.host}`;
  await transport.close().catch(() => undefined);
  let delay = action.initialDelayMs ?? 1000;
  let lastError = '';
  await sleep(delay, signal);
  while (Date.now() - started < action.timeoutMs && !signal?.aborted) {
    const attemptMs = Math.min(CONNECT_ATTEMPT_MS, Math.max(1, action.timeoutMs - (Date.now() - started)));
    try {
      await withDeadline(
        transport.connect(),
        attemptMs,
        `a connect attempt did not finish in ${attemptMs} ms`,
        signal,
      );
      return succeededResult(command, Date.now() - started, transport.host);
    } catch (error) {
      lastError = error instanceof Error ? error.message : String(error);
      // An attempt that hangs (a host restarting sshd mid-handshake, a channel that never opens)
      // is dropped, so the next one starts on a fresh connection.
      await transport.close().catch(() => undefined);
    }
    delay = Math.min(delay * 2, 10_000);
    await sleep(Math.min(delay, Math.max(0, action.timeoutMs - (Date.now() - started))), signal);
  }
  if (signal?.aborted)
    return failedResult(command, 'stopped: the run was interrupted', Date.now() - started, transport.host);
  const result = failedResult(
    command,
    `host did not come back within ${action.timeoutMs} ms: ${lastError}`,
    Date.now() - started,
    transport.host,
  );
  result.timedOut = true;
  return result;
}

/** Hands provider records to the run's ledger (state.json) and reports when they are on disk. */
async function record(
  action: Extract<ModuleAction, { kind: 'record' }>,
  options: RunModuleOptions,
): Promise<CommandResult> {
  const started = Date.now();
  const command = 'record provider resources in the state';
  const ledger = options.context.ledger;
  if (!ledger)
    return failedResult(
      command,
      'provider modules run only inside kubemix up and down (no state to record in)',
    );
  try {
    await ledger.record(action.update);
  } catch (error) {
    return failedResult(command, `cannot write the state: ${(error as Error).message}`, Date.now() - started);
  }
  return succeededResult(command, Date.now() - started, options.transport.host);
}

/** Runs a `call` action's function; a throw becomes a failed result carrying its message. */
async function call(
  action: Extract<ModuleAction, { kind: 'call' }>,
  options: RunModuleOptions,
): Promise<CommandResult> {
  const started = Date.now();
  const io: CallIo = {
    progress: (line) => options.onOutput?.({ stream: 'stdout', data: `${line}\n` }),
    ...(options.signal ? { signal: options.signal } : {}),
    ...(options.context.ledger ? { ledger: options.context.ledger } : {}),
  };
  try {
    await action.run(io);
  } catch (error) {
    return failedResult(action.what, (error as Error).message, Date.now() - started, options.transport.host);
  }
  return succeededResult(action.what, Date.now() - started, options.transport.host);
}
