import { shQuote } from '../../quote/index.js';
import { checkModeSkip } from '../shell.js';
import type { Module } from '../types.js';
import { commandOutcome, parseCommandArgs } from './command.js';

/** Arguments of `raw`: the command line and an optional shell. */
export interface RawArgs {
  cmd: string;
  executable?: string;
}

/** `raw`: sends the command line as is (no guards, no chdir); the escape hatch of Ansible. */
export const rawModule: Module<RawArgs> = {
  name: 'raw',
  os: 'any',
  parseArgs(raw) {
    const { cmd, executable } = parseCommandArgs('raw', raw);
    return executable === undefined ? { cmd } : { cmd, executable };
  },
  *run(args, context) {
    if (context.checkMode) return checkModeSkip();
    const command = args.executable ? `${shQuote(args.executable)} -c ${shQuote(args.cmd)}` : args.cmd;
    return commandOutcome(yield { kind: 'exec', command });
  },
};
