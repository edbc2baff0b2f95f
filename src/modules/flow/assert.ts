import { evaluateCondition } from '../../template/index.js';
import { optionalBool, type RawArgs, rejectUnknown } from '../args.js';
import { immediate } from '../immediate.js';
import type { Module, ModuleContext, ModuleOutcome } from '../types.js';

/** Arguments of `assert`. */
export interface AssertArgs {
  that: string[];
  failMsg?: unknown;
  successMsg?: unknown;
  quiet: boolean;
}

/** `assert`: every `that` condition (bare Jinja expressions) must hold, or the task fails. */
export const assertModule: Module<AssertArgs> = {
  name: 'assert',
  os: 'any',
  parseArgs(raw: RawArgs) {
    rejectUnknown('assert', raw, ['that', 'fail_msg', 'msg', 'success_msg', 'quiet']);
    const that = raw['that'];
    const list = typeof that === 'string' || typeof that === 'boolean' ? [that] : that;
    if (!Array.isArray(list) || list.length === 0)
      throw new TypeError('assert: "that" must be a condition or a list of conditions');
    const args: AssertArgs = {
      that: list.map((c) => (typeof c === 'boolean' ? String(c) : c)),
      quiet: optionalBool('assert', raw, 'quiet') ?? false,
    };
    if (!args.that.every((c) => typeof c === 'string'))
      throw new TypeError('assert: every entry of "that" must be a string');
    const failMsg = raw['fail_msg'] ?? raw['msg'];
    if (failMsg !== undefined) args.failMsg = failMsg;
    if (raw['success_msg'] !== undefined) args.successMsg = raw['success_msg'];
    return args;
  },
  run(args, context) {
    return immediate(outcomeOf(args, context));
  },
};

function outcomeOf(args: AssertArgs, context: ModuleContext): ModuleOutcome {
  for (const condition of args.that) {
    let holds: boolean;
    try {
      holds = evaluateCondition(condition, context.vars);
    } catch (error) {
      return {
        changed: false,
        failed: true,
        msg: `The conditional check '${condition}' failed. The error was: ${(error as Error).message}`,
        data: { assertion: condition },
      };
    }
    if (!holds) {
      const msg =
        args.failMsg === undefined
          ? 'Assertion failed'
          : typeof args.failMsg === 'string'
            ? args.failMsg
            : JSON.stringify(args.failMsg);
      return { changed: false, failed: true, msg, data: { assertion: condition, evaluated_to: false } };
    }
  }
  const msg = args.successMsg === undefined ? 'All assertions passed' : String(args.successMsg);
  return { changed: false, failed: false, msg, data: { msg } };
}
