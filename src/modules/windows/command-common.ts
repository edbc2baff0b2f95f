import { psQuote, quoteWindowsArg } from '../../quote/index.js';
import { optionalBool, optionalString, type RawArgs, rejectUnknown } from '../args.js';
import { commandData } from '../shell.js';
import type { ModuleAction, ModuleOutcome } from '../types.js';
import { moduleHeader, WIN_SKIPPED_MARKER } from './script.js';

/** Arguments of win_shell and win_command. */
export interface WinCommandArgs {
  /** The command as written (free form or `cmd`). */
  cmd: string;
  /** win_command with `argv`: the words, already split. */
  argv?: string[];
  chdir?: string;
  creates?: string;
  removes?: string;
  stdin?: string;
  /** win_shell only: another shell taking `/c COMMAND` (e.g. cmd). */
  executable?: string;
}

/** Parses win_shell / win_command arguments (Ansible's free form, cmd, argv, chdir, creates, removes, stdin). */
export function parseWinCommandArgs(module: string, raw: RawArgs, allowArgv: boolean): WinCommandArgs {
  const known = ['cmd', '_raw_params', 'chdir', 'creates', 'removes', 'stdin'];
  if (allowArgv) known.push('argv');
  else known.push('executable', 'no_profile');
  rejectUnknown(module, raw, known);
  // PowerShell always starts with -NoProfile here (the transports' invocation): loading a profile is not offered.
  if (optionalBool(module, raw, 'no_profile') === false)
    throw new TypeError(`${module}: "no_profile: false" is not supported (profiles are never loaded)`);
  const argvRaw = raw['argv'];
  let argv: string[] | undefined;
  if (argvRaw !== undefined && argvRaw !== null) {
    if (
      !Array.isArray(argvRaw) ||
      argvRaw.length === 0 ||
      !argvRaw.every((a) => ['string', 'number'].includes(typeof a))
    )
      throw new TypeError(`${module}: "argv" must be a non-empty list of strings`);
    argv = argvRaw.map(String);
  }
  const cmdRaw = raw['cmd'] ?? raw['_raw_params'];
  if (argv && cmdRaw !== undefined) throw new TypeError(`${module}: give either "cmd" or "argv", not both`);
  const cmd = argv ? argv.map(quoteWindowsArg).join(' ') : cmdRaw;
  if (typeof cmd !== 'string' || cmd.trim() === '')
    throw new TypeError(`${module}: "cmd" must be a non-empty string`);
  const args: WinCommandArgs = { cmd };
  if (argv) args.argv = argv;
  for (const key of ['chdir', 'creates', 'removes', 'stdin', 'executable'] as const) {
    const value = optionalString(module, raw, key);
    if (value !== undefined) args[key] = value;
  }
  return args;
}

/** Splits a Windows command line into words (double quotes group; backslashes escape only quotes). */
export function splitWindowsCommandLine(line: string): string[] {
  const words: string[] = [];
  let current = '';
  let inWord = false;
  let quoted = false;
  for (let i = 0; i < line.length; i++) {
    const ch = line[i]!;
    if (ch === '\\') {
      let n = 0;
      while (line[i + n] === '\\') n++;
      if (line[i + n] === '"') {
        current += '\\'.repeat(Math.floor(n / 2));
        if (n % 2 === 1) current += '"';
        else quoted = !quoted;
        i += n;
      } else {
        current += '\\'.repeat(n);
        i += n - 1;
      }
      inWord = true;
    } else if (ch === '"') {
      quoted = !quoted;
      inWord = true;
    } else if ((ch === ' ' || ch === '\t') && !quoted) {
      if (inWord) words.push(current);
      current = '';
      inWord = false;
    } else {
      current += ch;
      inWord = true;
    }
  }
  if (inWord) words.push(current);
  return words;
}

/** The creates/removes guard: prints the skip marker and exits 0 when it matches. */
export function guardLines(args: Pick<WinCommandArgs, 'creates' | 'removes'>): string[] {
  if (args.creates !== undefined)
    return [
      `if (Test-Path -LiteralPath ${psQuote(args.creates)}) { [Console]::Out.WriteLine('${WIN_SKIPPED_MARKER}'); exit 0 }`,
    ];
  if (args.removes !== undefined)
    return [
      `if (-not (Test-Path -LiteralPath ${psQuote(args.removes)})) { [Console]::Out.WriteLine('${WIN_SKIPPED_MARKER}'); exit 0 }`,
    ];
  return [];
}

/** The exec action of win_shell / win_command around a script body. */
export function commandAction(
  module: string,
  args: WinCommandArgs,
  body: string[],
): Extract<ModuleAction, { kind: 'exec' }> {
  const header: Record<string, unknown> = { cmd: args.cmd };
  if (args.argv) header['argv'] = args.argv;
  if (args.creates !== undefined) header['creates'] = args.creates;
  if (args.removes !== undefined) header['removes'] = args.removes;
  if (args.executable !== undefined) header['executable'] = args.executable;
  const action: Extract<ModuleAction, { kind: 'exec' }> = {
    kind: 'exec',
    command: [moduleHeader(module, header), ...guardLines(args), ...body].join('\n'),
    display: args.cmd,
  };
  if (args.chdir !== undefined) action.cwd = args.chdir;
  if (args.stdin !== undefined) action.stdin = args.stdin;
  return action;
}

/** Outcome of win_shell / win_command: Ansible's rc/stdout/stderr, or "skipped" when a guard matched. */
export function winCommandOutcome(result: Parameters<typeof commandData>[0]): ModuleOutcome {
  if (result.stdout.trim() === WIN_SKIPPED_MARKER && !result.failed) {
    return {
      changed: false,
      failed: false,
      msg: 'skipped, since a creates/removes guard matched',
      data: { rc: 0, stdout: '', stderr: '', stdout_lines: [], stderr_lines: [] },
    };
  }
  const data = commandData({
    ...result,
    stdout: result.stdout.replace(/\r\n/g, '\n'),
    stderr: result.stderr.replace(/\r\n/g, '\n'),
  });
  const outcome: ModuleOutcome = { changed: true, failed: result.failed, data };
  if (result.failed) {
    const why = result.stderr.trim().split(/\r?\n/).slice(-3).join(' ');
    outcome.msg = result.timedOut
      ? 'command timed out'
      : result.exitCode === null
        ? why || 'command could not run'
        : `non-zero return code${why ? `: ${why}` : ''}`;
  }
  return outcome;
}
