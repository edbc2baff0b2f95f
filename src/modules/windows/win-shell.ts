import type { Module } from '../types.js';
import {
  commandAction,
  parseWinCommandArgs,
  type WinCommandArgs,
  winCheckModeSkip,
  winCommandOutcome,
} from './command-common.js';

/**
 * `win_shell`: runs a PowerShell command line on a Windows host (pipes, cmdlets, variables).
 * `chdir` and `stdin` travel with the exec action; `creates`/`removes` guard it.
 */
export const winShellModule: Module<WinCommandArgs> = {
  name: 'win_shell',
  os: 'windows',
  parseArgs: (raw) => parseWinCommandArgs('win_shell', raw, false),
  *run(args, context) {
    if (context.checkMode) return winCheckModeSkip();
    return winCommandOutcome(yield commandAction('win_shell', args, [args.cmd]));
  },
};
