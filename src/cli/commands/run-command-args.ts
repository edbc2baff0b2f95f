import { shQuote } from '../../quote/index.js';
import {
  choiceOption,
  intOption,
  type OptionSpec,
  type ParsedCommandArgs,
  parseCommandArgs,
  SHORT_FORM_OPTIONS,
  verbosity,
} from '../options.js';
import { out } from '../output.js';
import type { RunFlags } from '../run-plan-command.js';
import { VERBOSE_HELP } from '../verbose-lines.js';

/** Options of every command that runs a plan (up, down, ci), besides the short form. */
export const RUN_OPTIONS = {
  'cluster-dir': { type: 'string' },
  forks: { type: 'string', short: 'f' },
  'log-format': { type: 'string' },
} as const;

export const RUN_HELP = `  --cluster-dir DIR          where state, logs and kubeconfig live
                             (default: $KUBEMIX_HOME or ~/.kubemix, then clusters/<name>)
  -f, --forks N              at most N hosts work at once (default 10)
  --log-format text|json     plain lines, or one JSON event per line (default: a live task
                             list on a terminal, plain lines otherwise or when CI is set)
${VERBOSE_HELP}`;

type RunCommandOptions<T extends OptionSpec> = typeof SHORT_FORM_OPTIONS & typeof RUN_OPTIONS & T;

/** A plan-running command's arguments, parsed, with the flags all of them share already checked. */
export interface RunCommandArgs<T extends OptionSpec> {
  values: ParsedCommandArgs<RunCommandOptions<T>>['values'];
  positionals: string[];
  /**
   * --forks and --log-format, checked (exit 2 on a bad value), and the -v lines' listener, as
   * runPlanCommand takes them.
   */
  flags: Pick<RunFlags, 'forks' | 'logFormat' | 'listeners'>;
}

/**
 * Parses up's, down's or ci's argv: the short form, RUN_OPTIONS and the command's own `extra`
 * options. Prints `help` and returns undefined for --help (the command exits 0).
 */
export function parseRunCommand<T extends OptionSpec>(
  command: string,
  argv: string[],
  extra: T,
  help: string,
): RunCommandArgs<T> | undefined {
  const { values, positionals } = parseCommandArgs(command, argv, {
    ...SHORT_FORM_OPTIONS,
    ...RUN_OPTIONS,
    ...extra,
  });
  // The shared options' values, typed: TypeScript cannot see them through the generic `extra`.
  const shared = values as { help?: boolean; forks?: string; 'log-format'?: string; verbose?: boolean[] };
  if (shared.help) {
    out(help);
    return undefined;
  }
  const forks = intOption('forks', shared.forks, { min: 1 });
  const logFormat = choiceOption('log-format', shared['log-format'], ['text', 'json'] as const) ?? 'text';
  const level = verbosity(shared);
  return {
    values,
    positionals,
    flags: {
      logFormat,
      ...(forks !== undefined ? { forks } : {}),
      ...(level > 0 ? { verbosity: level } : {}),
    },
  };
}

/** The spec argument plus the options that select the cluster (short form, --cluster-dir), shell-quoted. */
export function specArguments(spec: string, values: Record<string, unknown>): string[] {
  const words = [shQuote(spec)];
  for (const name of [...Object.keys(SHORT_FORM_OPTIONS), 'cluster-dir']) {
    const value = values[name];
    for (const item of Array.isArray(value) ? value : value === undefined ? [] : [value])
      words.push(`--${name}`, shQuote(String(item)));
  }
  return words;
}
