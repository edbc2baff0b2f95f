import type { Module, ModuleAction, ModuleContext, ModuleOutcome } from '../../src/modules/types.js';
import type { CommandResult } from '../../src/types/command-result.js';

/** A command result as a transport would return it. */
export function result(stdout = '', options: Partial<CommandResult> = {}): CommandResult {
  const exitCode = options.exitCode === undefined ? 0 : options.exitCode;
  return {
    command: 'cmd',
    exitCode,
    stdout,
    stderr: '',
    durationMs: 10,
    failed: exitCode !== 0,
    timedOut: false,
    ...options,
  };
}

/** A module context for a Linux host. */
export function context(overrides: Partial<ModuleContext> = {}): ModuleContext {
  return {
    host: {
      name: 'node1',
      address: '10.0.0.5',
      os: 'linux',
      connection: 'ssh',
      role: 'worker',
      group: 'workers',
    },
    os: 'linux',
    vars: {},
    checkMode: false,
    ...overrides,
  };
}

/**
 * Drives a module generator with fake results (pyinfra's habit: arguments + fake results ->
 * expected commands). Fails when the module asks for more actions than results were given.
 */
export function drive(
  module: Module<any>,
  raw: Record<string, unknown>,
  results: CommandResult[],
  ctx: ModuleContext = context(),
) {
  const run = module.run(module.parseArgs(raw), ctx);
  const actions: ModuleAction[] = [];
  let next = run.next();
  let i = 0;
  while (!next.done) {
    actions.push(next.value);
    const answer = results[i++];
    if (!answer)
      throw new Error(
        `module asked for action ${i} (${JSON.stringify(next.value).slice(0, 200)}) but no result was given`,
      );
    next = run.next(answer);
  }
  if (i !== results.length) throw new Error(`module used ${i} results, ${results.length} were given`);
  return {
    actions,
    outcome: next.value as ModuleOutcome,
    execs: actions.filter((a) => a.kind === 'exec').map((a) => (a as { command: string }).command),
  };
}

/**
 * Drives a module answering each exec by the first pattern its command matches (else `fallback`,
 * success by default), and every other action with success: for modules whose command order is
 * not what a test is about. Returns the actions, the exec commands and the outcome.
 */
export function driveMatching<A>(
  module: Module<A>,
  raw: Record<string, unknown>,
  answers: Array<[RegExp, CommandResult]>,
  ctx: ModuleContext = context(),
  fallback: CommandResult = result(),
) {
  const run = module.run(module.parseArgs(raw), ctx);
  const actions: ModuleAction[] = [];
  let next = run.next();
  while (!next.done) {
    const action = next.value;
    actions.push(action);
    const command = action.kind === 'exec' ? action.command : undefined;
    const answer =
      command === undefined
        ? result()
        : (answers.find(([pattern]) => pattern.test(command))?.[1] ?? fallback);
    next = run.next(answer);
  }
  return {
    actions,
    outcome: next.value as ModuleOutcome,
    execs: actions.filter((a) => a.kind === 'exec').map((a) => (a as { command: string }).command),
  };
}
