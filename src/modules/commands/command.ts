import { shQuote } from '../../quote/index.js';
import { optionalString, type RawArgs, rejectUnknown } from '../args.js';
import { checkModeSkip, commandData } from '../shell.js';
import type { Module, ModuleOutcome } from '../types.js';

/** Arguments of `command` and `shell`: Ansible's free-form `cmd` plus the common options. */
export interface CommandArgs {
  cmd: string;
  chdir?: string;
  stdin?: string;
  creates?: string;
  removes?: string;
  /** shell only: the shell to run the command with (default /bin/sh). */
  executable?: string;
}

const KNOWN = [
  'cmd',
  '_raw_params',
  'argv',
  'chdir',
  'stdin',
  'creates',
  'removes',
  'executable',
  'stdin_add_newline',
];

/** Parses command/shell/raw arguments; `argv` (a list) is quoted and joined. */
export function parseCommandArgs(moduleName: string, raw: RawArgs): CommandArgs {
  rejectUnknown(moduleName, raw, KNOWN);
  let cmd = raw['cmd'] ?? raw['_raw_params'];
  const argv = raw['argv'];
  if (cmd === undefined && Array.isArray(argv)) cmd = argv.map((a) => shQuote(String(a))).join(' ');
  if (typeof cmd !== 'string' || cmd.trim() === '')
    throw new TypeError(`${moduleName}: "cmd" must be a non-empty string`);
  const args: CommandArgs = { cmd };
  for (const key of ['chdir', 'creates', 'removes', 'executable'] as const) {
    const value = optionalString(moduleName, raw, key);
    if (value !== undefined) args[key] = value;
  }
  const stdin = optionalString(moduleName, raw, 'stdin');
  if (stdin !== undefined) args.stdin = raw['stdin_add_newline'] === false ? stdin : `${stdin}\n`;
  return args;
}

/** Marker printed instead of running the command when a creates/removes guard matched. */
export const SKIPPED_MARKER = '__KUBEMIX_SKIPPED__';

/** Wraps a command with Ansible's creates/removes guards: exit 0 with a marker when skipped. */
export function guardCommand(args: Pick<CommandArgs, 'creates' | 'removes'>, body: string): string {
  if (args.creates)
    return `if [ -e ${shQuote(args.creates)} ]; then echo ${SKIPPED_MARKER}; else ${body}; fi`;
  if (args.removes)
    return `if [ ! -e ${shQuote(args.removes)} ]; then echo ${SKIPPED_MARKER}; else ${body}; fi`;
  return body;
}

/** Outcome of a finished command (shared by command, shell, raw and script). */
export function commandOutcome(result: Parameters<typeof commandData>[0]): ModuleOutcome {
  if (result.stdout.trim() === SKIPPED_MARKER) {
    return {
      changed: false,
      failed: false,
      msg: 'skipped, since a creates/removes guard matched',
      data: { rc: 0, stdout: '', stderr: '', stdout_lines: [], stderr_lines: [] },
    };
  }
  const outcome: ModuleOutcome = { changed: true, failed: result.failed, data: commandData(result) };
  if (result.failed)
    outcome.msg = result.timedOut
      ? 'command timed out'
      : result.exitCode === null
        ? result.stderr.trim() || 'command could not run'
        : 'non-zero return code';
  return outcome;
}

function makeCommandModule(name: 'command' | 'shell'): Module<CommandArgs> {
  return {
    name,
    os: 'linux',
    parseArgs: (raw) => parseCommandArgs(name, raw),
    *run(args, context) {
      if (context.checkMode) return checkModeSkip();
      let body = args.cmd;
      if (name === 'shell' && args.executable) body = `${shQuote(args.executable)} -c ${shQuote(args.cmd)}`;
      const action: { kind: 'exec'; command: string; cwd?: string; stdin?: string } = {
        kind: 'exec',
        command: guardCommand(args, body),
      };
      if (args.chdir !== undefined) action.cwd = args.chdir;
      if (args.stdin !== undefined) action.stdin = args.stdin;
      return commandOutcome(yield action);
    },
  };
}

/**
 * `command`: runs a command line. Ansible runs it without a shell; kubemix's transports always
 * run through the host's sh, so `command` and `shell` behave the same (pipes and $VARS work).
 */
export const commandModule = makeCommandModule('command');
/** `shell`: runs a command line in the host's shell (`executable` picks another shell). */
export const shellModule = makeCommandModule('shell');
