import type { Module } from './types.js';

/** Arguments of `command` and `shell`: Ansible's free-form `cmd` plus the common options. */
export interface CommandArgs {
  cmd: string;
  chdir?: string;
  stdin?: string;
  creates?: string;
  removes?: string;
}

function parseCommandArgs(moduleName: string, raw: Record<string, unknown>): CommandArgs {
  const cmd = raw['cmd'] ?? raw['_raw_params'];
  if (typeof cmd !== 'string' || cmd.trim() === '') throw new TypeError(`${moduleName}: "cmd" must be a non-empty string`);
  const args: CommandArgs = { cmd };
  for (const key of ['chdir', 'stdin', 'creates', 'removes'] as const) {
    const value = raw[key];
    if (value === undefined) continue;
    if (typeof value !== 'string') throw new TypeError(`${moduleName}: "${key}" must be a string`);
    args[key] = value;
  }
  return args;
}

const quote = (value: string) => `'${value.replaceAll("'", `'\\''`)}'`;

/** Wraps a command with Ansible's creates/removes guards: exit 0 with a marker when skipped. */
export function guardCommand(args: CommandArgs, body: string): string {
  if (args.creates) return `if [ -e ${quote(args.creates)} ]; then echo __KUBEMIX_SKIPPED__; else ${body}; fi`;
  if (args.removes) return `if [ ! -e ${quote(args.removes)} ]; then echo __KUBEMIX_SKIPPED__; else ${body}; fi`;
  return body;
}

function makeCommandModule(name: 'command' | 'shell'): Module<CommandArgs> {
  return {
    name,
    os: 'linux',
    parseArgs: (raw) => parseCommandArgs(name, raw),
    *run(args, context) {
      if (context.checkMode) return { changed: true, failed: false, msg: `would run: ${args.cmd}` };
      const action: { kind: 'exec'; command: string; cwd?: string; stdin?: string } = {
        kind: 'exec',
        command: guardCommand(args, args.cmd),
      };
      if (args.chdir !== undefined) action.cwd = args.chdir;
      if (args.stdin !== undefined) action.stdin = args.stdin;
      const result = yield action;
      if (result.stdout.trim() === '__KUBEMIX_SKIPPED__') return { changed: false, failed: false, msg: 'skipped: guard matched' };
      return {
        changed: true,
        failed: result.failed,
        data: { rc: result.exitCode, stdout: result.stdout, stderr: result.stderr },
        ...(result.failed ? { msg: result.timedOut ? 'timed out' : `exit code ${result.exitCode ?? 'none'}` } : {}),
      };
    },
  };
}

/** `command`: runs a command line. (Ansible runs it without a shell; over one persistent sh we share the shell, so both behave the same here.) */
export const commandModule = makeCommandModule('command');
/** `shell`: runs a command line in the host's shell. */
export const shellModule = makeCommandModule('shell');
