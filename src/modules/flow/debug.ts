import { evaluateExpression, TemplateRenderError } from '../../template/index.js';
import { optionalNumber, type RawArgs, rejectUnknown } from '../args.js';
import { immediate } from '../immediate.js';
import type { Module, ModuleContext, ModuleOutcome } from '../types.js';

/** Arguments of `debug`: a message, or the name of a variable to show. */
export type DebugArgs = { msg: unknown } | { var: string };

/** `debug`: shows a message or a variable's value (`var` is a bare expression, as in Ansible). */
export const debugModule: Module<DebugArgs> = {
  name: 'debug',
  os: 'any',
  parseArgs(raw: RawArgs) {
    rejectUnknown('debug', raw, ['msg', 'var', 'verbosity']);
    optionalNumber('debug', raw, 'verbosity');
    if (raw['msg'] !== undefined && raw['var'] !== undefined)
      throw new TypeError('debug: "msg" and "var" are mutually exclusive');
    if (raw['var'] !== undefined) {
      if (typeof raw['var'] !== 'string' || raw['var'].trim() === '')
        throw new TypeError('debug: "var" must be a variable name or expression');
      return { var: raw['var'] };
    }
    return { msg: raw['msg'] ?? 'Hello world!' };
  },
  run(args, context) {
    return immediate(outcomeOf(args, context));
  },
};

function outcomeOf(args: DebugArgs, context: ModuleContext): ModuleOutcome {
  if ('var' in args) {
    let value: unknown;
    try {
      value = evaluateExpression(args.var, context.vars);
    } catch (error) {
      if (!(error instanceof TemplateRenderError)) throw error;
      value = 'VARIABLE IS NOT DEFINED!';
    }
    return {
      changed: false,
      failed: false,
      msg: `${args.var}: ${show(value)}`,
      data: { [args.var]: value },
    };
  }
  return { changed: false, failed: false, msg: show(args.msg), data: { msg: args.msg } };
}

function show(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}
