import { psQuote } from '../../quote/index.js';
import { checkModeSkip } from '../shell.js';
import type { Module } from '../types.js';
import {
  commandAction,
  parseWinCommandArgs,
  type WinCommandArgs,
  winCommandOutcome,
} from './command-common.js';

/** The script body: the command itself, or `& EXECUTABLE /c COMMAND` for another shell (Ansible's `executable`). */
export function winShellBody(args: WinCommandArgs): string[] {
  if (args.executable === undefined) return [args.cmd];
  return [`& ${psQuote(args.executable)} /c ${psQuote(args.cmd)}`];
}

/**
 * `win_shell`: runs a PowerShell command line on a Windows host (pipes, cmdlets, variables), or
 * with `executable` (e.g. cmd) another shell's `/c` command line. `chdir` and `stdin` travel with
 * the exec action; `creates`/`removes` guard it.
 */
export const winShellModule: Module<WinCommandArgs> = {
  name: 'win_shell',
  os: 'windows',
  parseArgs: (raw) => parseWinCommandArgs('win_shell', raw, false),
  *run(args, context) {
    if (context.checkMode) return checkModeSkip();
    return winCommandOutcome(yield commandAction('win_shell', args, winShellBody(args)));
  },
};
