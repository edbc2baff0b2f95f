import { type RawArgs, rejectUnknown } from '../args.js';
import { immediate } from '../immediate.js';
import type { Module, ModuleOutcome } from '../types.js';

/** `fail`: fails the task with a message. */
export const failModule: Module<{ msg: string }> = {
  name: 'fail',
  os: 'any',
  parseArgs(raw: RawArgs) {
    rejectUnknown('fail', raw, ['msg']);
    const msg = raw['msg'];
    return {
      msg:
        msg === undefined
          ? 'Failed as requested from task'
          : typeof msg === 'string'
            ? msg
            : JSON.stringify(msg),
    };
  },
  run(args) {
    return immediate(outcomeOf(args));
  },
};

function outcomeOf(args: { msg: string }): ModuleOutcome {
  return { changed: false, failed: true, msg: args.msg };
}
