import { psQuote } from '../../quote/index.js';
import { checkModeSkip } from '../shell.js';
import type { Module } from '../types.js';
import {
  commandAction,
  parseWinCommandArgs,
  splitWindowsCommandLine,
  type WinCommandArgs,
  winCommandOutcome,
} from './command-common.js';

/** The PowerShell that starts an executable with literal arguments (no shell parsing of them). */
export function winCommandBody(args: WinCommandArgs): string[] {
  const words = args.argv ?? splitWindowsCommandLine(args.cmd);
  const [program, ...rest] = words;
  if (program === undefined) throw new TypeError('win_command: empty command');
  return [`& ${[program, ...rest].map(psQuote).join(' ')}`];
}

/**
 * `win_command`: runs an executable with arguments, without a shell (Ansible's semantics):
 * the words are passed literally, so `|`, `>` and `$x` are plain arguments.
 */
export const winCommandModule: Module<WinCommandArgs> = {
  name: 'win_command',
  os: 'windows',
  parseArgs: (raw) => parseWinCommandArgs('win_command', raw, true),
  *run(args, context) {
    if (context.checkMode) return checkModeSkip();
    return winCommandOutcome(yield commandAction('win_command', args, winCommandBody(args)));
  },
};
