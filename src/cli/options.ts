import { type ParseArgsConfig, parseArgs } from 'node:util';
import { UsageError } from '../errors/index.js';
import { didYouMean } from './did-you-mean.js';

export type OptionSpec = NonNullable<ParseArgsConfig['options']>;
type HelpOption = {
  help: { type: 'boolean'; short: 'h' };
  verbose: { type: 'boolean'; short: 'v'; multiple: true };
};

/** What every command accepts besides its own options: --help, and -v/-vv/-vvv (--verbose, repeatable). */
const COMMON_OPTIONS = {
  help: { type: 'boolean', short: 'h' },
  verbose: { type: 'boolean', short: 'v', multiple: true },
} as const satisfies OptionSpec;

/** How many -v were given (-vv is 2), at most 3. */
export function verbosity(values: { verbose?: boolean[] | undefined }): number {
  return Math.min(3, values.verbose?.length ?? 0);
}

/** What parseArgs returns for a command's options plus the implicit --help. */
export type ParsedCommandArgs<T extends OptionSpec> = ReturnType<
  typeof parseArgs<{ args: string[]; options: T & HelpOption; allowPositionals: true; strict: true }>
>;

/** Options every spec-taking command accepts: how Kubeinit's short form is completed. */
export const SHORT_FORM_OPTIONS = {
  'windows-workers': { type: 'string' },
  'windows-version': { type: 'string' },
  hypervisor: { type: 'string', multiple: true },
  'kubernetes-version': { type: 'string' },
  name: { type: 'string' },
  'linux-image': { type: 'string' },
  'linux-image-sha256': { type: 'string' },
  'windows-iso': { type: 'string' },
  'windows-iso-sha256': { type: 'string' },
  'virtio-iso': { type: 'string' },
  'virtio-iso-sha256': { type: 'string' },
  network: { type: 'string' },
} as const satisfies OptionSpec;

export const SHORT_FORM_HELP = `Short-form options (with a spec like k8s-libvirt-1-1-1 = distro-driver-controllers-computes-hypervisors):
  --windows-workers N        how many of the computes are Windows workers (default 0)
  --windows-version V        Windows Server 2019, 2022 or 2025 (default 2022)
  --hypervisor HOST          a hypervisor address ([user@]host[:port]); repeat for more;
                             none: the local machine is the only hypervisor
  --kubernetes-version V     Kubernetes version (default: playbooks/versions.yaml)
  --name NAME                cluster name (default: the short form itself)
  --linux-image PATH|URL     Linux base image, qcow2 (default: the Debian cloud image pinned
                             in playbooks/versions.yaml)
  --linux-image-sha256 HEX   its SHA-256 (required with a URL: every download is verified)
  --windows-iso PATH|URL     Windows Server evaluation ISO (Windows workers)
  --windows-iso-sha256 HEX   its SHA-256
  --virtio-iso PATH|URL      virtio-win driver ISO (Windows workers)
  --virtio-iso-sha256 HEX    its SHA-256
  --network CIDR             the guests' NAT network (default 10.0.0.0/24)`;

/**
 * Parses argv for one command. Unknown flags and missing values become one-line UsageErrors
 * (exit 2) in kubemix's words, naming the flag and the nearest known one for a typo.
 */
export function parseCommandArgs<T extends OptionSpec>(
  command: string,
  argv: string[],
  options: T,
): ParsedCommandArgs<T> {
  const all: OptionSpec = { ...options, ...COMMON_OPTIONS };
  try {
    return parseArgs({ args: argv, options: all as T & HelpOption, allowPositionals: true, strict: true });
  } catch (error) {
    throw new UsageError(`kubemix ${command}: ${argumentProblem(argv, all, error as Error, command)}`);
  }
}

/**
 * What is wrong with argv, found again without strict mode (whose messages are Node's and name
 * no alternative): the first unknown flag, a flag missing its value, or a value a switch does
 * not take. Node's own first line when none of these is it.
 */
function argumentProblem(argv: string[], options: OptionSpec, error: Error, command: string): string {
  const help = `see kubemix ${command} --help`;
  const known = Object.entries(options).flatMap(([name, o]) => [
    `--${name}`,
    ...(o.short ? [`-${o.short}`] : []),
  ]);
  const { tokens } = parseArgs({ args: argv, options, allowPositionals: true, strict: false, tokens: true });
  for (const token of tokens) {
    if (token.kind !== 'option') continue;
    const option = options[token.name];
    if (!option) {
      const guess = didYouMean(token.rawName, known);
      return `unknown option ${token.rawName} (${guess ? `did you mean ${guess}?` : help})`;
    }
    const flag = token.rawName.startsWith('--') ? token.rawName : `${token.rawName} (--${token.name})`;
    if (option.type === 'string' && token.value === undefined) return `${flag} needs a value`;
    if (option.type === 'string' && !token.inlineValue && token.value?.startsWith('-'))
      return `${flag} needs a value; one that starts with "-" is written --${token.name}=${token.value}`;
    if (option.type === 'boolean' && token.value !== undefined)
      return `${flag} is a switch and takes no value (got "${token.value}")`;
  }
  return `${error.message.split('\n')[0]} (${help})`;
}

/** A positive integer flag value, or a UsageError naming the flag. */
export function intOption(name: string, value: string | undefined, { min = 0 } = {}): number | undefined {
  if (value === undefined) return undefined;
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < min)
    throw new UsageError(`--${name} must be a whole number >= ${min}, got "${value}"`);
  return parsed;
}

/** One of a fixed set of values, or a UsageError listing them. */
export function choiceOption<T extends string>(
  name: string,
  value: string | undefined,
  choices: readonly T[],
): T | undefined {
  if (value === undefined) return undefined;
  if (!(choices as readonly string[]).includes(value))
    throw new UsageError(`--${name} must be one of ${choices.join(', ')}, got "${value}"`);
  return value as T;
}

/** The single positional argument a command needs, or a UsageError. */
export function onePositional(command: string, positionals: string[], what: string): string {
  if (positionals.length === 0)
    throw new UsageError(`kubemix ${command}: missing ${what} (see kubemix ${command} --help)`);
  if (positionals.length > 1)
    throw new UsageError(`kubemix ${command}: unexpected argument "${positionals[1]}"`);
  return positionals[0]!;
}
