import { createHash } from 'node:crypto';
import { posix } from 'node:path';
import { parse as parseYaml, stringify as stringifyYaml } from 'yaml';
import { psQuote, quoteWindowsArg, shQuoteArgument } from '../quote/index.js';

/** Thrown by filters for bad input; render.ts turns it into a TemplateRenderError. */
export class FilterError extends Error {}

/** Python's truthiness (what Jinja uses): empty strings, lists and dicts are false. */
export function pythonTruthy(value: unknown): boolean {
  if (Array.isArray(value)) return value.length > 0;
  if (value instanceof Map || value instanceof Set) return value.size > 0;
  if (value && typeof value === 'object') return Object.keys(value).length > 0;
  return Boolean(value);
}

/** Ansible's `bool` filter: yes/on/1/true/y (any case) are true, everything else false. */
export function toBool(value: unknown): boolean {
  if (typeof value === 'boolean') return value;
  if (typeof value === 'number') return value === 1;
  if (typeof value === 'string') return ['yes', 'on', '1', 'true', 'y'].includes(value.trim().toLowerCase());
  return false;
}

/**
 * Ansible's `quote` filter, through kubemix's one POSIX quoting helper: the value as one literal
 * shell argument, left bare when it needs no quotes as Python's shlex.quote (what Ansible uses)
 * leaves it (`web`, `'a b'`, `''`).
 */
export function shellQuote(value: unknown): string {
  return shQuoteArgument(value === undefined || value === null ? '' : String(value));
}

/**
 * The `ansible.windows.quote` filter (ansible.windows collection, plugins/filter/quote.py):
 * `shell='powershell'` gives PowerShell verbatim literals (kubemix's one PowerShell quoting
 * helper); no shell gives Windows process command-line words (Microsoft C runtime rules, what
 * win_command splits). A list becomes its quoted words joined by spaces, a dict `KEY=quoted`
 * words (the MSI property form). `shell='cmd'` is refused: kubemix builds no cmd.exe lines.
 */
export function windowsQuote(value: unknown, options?: unknown): string {
  const shell =
    options && typeof options === 'object' && '__keywords' in options
      ? (options as { shell?: unknown }).shell
      : options;
  let quote: (word: string) => string;
  if (shell === undefined || shell === null || shell === '') quote = quoteWindowsArg;
  else if (shell === 'powershell') quote = psQuote;
  else
    throw new FilterError(
      `ansible.windows.quote: shell=${JSON.stringify(shell)} is not supported (use shell='powershell', or no shell for win_command words)`,
    );
  const items = Array.isArray(value) ? value : [value];
  return items
    .flatMap((item) =>
      item && typeof item === 'object'
        ? Object.entries(item).map(([key, v]) => `${key}=${quote(str(v))}`)
        : [quote(str(item))],
    )
    .join(' ');
}

/** Converts Python's `\1` / `\g<name>` replacement syntax to JavaScript's `$1` / `$<name>`. */
function pythonReplacement(replacement: string): string {
  return replacement
    .replaceAll('$', '$$$$')
    .replace(/\\g<(\w+)>/g, (_m, name: string) => (/^\d+$/.test(name) ? `$${name}` : `$<${name}>`))
    .replace(/\\(\d+)/g, '$$$1');
}

function regex(pattern: unknown, flags: string, ignorecase?: unknown, multiline?: unknown): RegExp {
  if (typeof pattern !== 'string') throw new FilterError('regex pattern must be a string');
  // Python's (?P<name>...) is JavaScript's (?<name>...).
  const source = pattern.replace(/\(\?P</g, '(?<');
  return new RegExp(source, `${flags}${ignorecase === true ? 'i' : ''}${multiline === true ? 'm' : ''}`);
}

const str = (value: unknown) =>
  value === undefined || value === null ? '' : typeof value === 'string' ? value : String(value);

function toJson(value: unknown, indent?: number, sortKeys = false): string {
  const replacer = sortKeys
    ? (_key: string, v: unknown) =>
        v && typeof v === 'object' && !Array.isArray(v)
          ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
          : v
    : undefined;
  return JSON.stringify(value ?? null, replacer, indent) ?? 'null';
}

function combine(...dicts: unknown[]): Record<string, unknown> {
  let recursive = false;
  const last = dicts.at(-1) as Record<string, unknown> | undefined;
  if (last && typeof last === 'object' && '__keywords' in last) {
    recursive = last['recursive'] === true;
    dicts = dicts.slice(0, -1);
  }
  const merge = (a: Record<string, unknown>, b: Record<string, unknown>): Record<string, unknown> => {
    const out: Record<string, unknown> = { ...a };
    for (const [k, v] of Object.entries(b)) {
      const prev = out[k];
      out[k] =
        recursive && isPlainObject(prev) && isPlainObject(v)
          ? merge(prev as Record<string, unknown>, v as Record<string, unknown>)
          : v;
    }
    return out;
  };
  return dicts.reduce<Record<string, unknown>>(
    (acc, d) => merge(acc, (d ?? {}) as Record<string, unknown>),
    {},
  );
}

function isPlainObject(value: unknown): boolean {
  return !!value && typeof value === 'object' && !Array.isArray(value);
}

/** Ansible/Jinja2 filters kubemix adds to nunjucks (its built-ins such as lower, upper, join, trim, length stay). */
export const FILTERS: Record<string, (...args: any[]) => unknown> = {
  default: (value: unknown, fallback: unknown = '', boolean: unknown = false) =>
    value === undefined || (boolean === true && !pythonTruthy(value)) ? fallback : value,
  mandatory: (value: unknown, msg?: string) => {
    if (value === undefined) throw new FilterError(msg ?? 'Mandatory variable not defined.');
    return value;
  },
  to_json: (value: unknown) => toJson(value),
  to_nice_json: (value: unknown, indent = 4) => toJson(value, indent, true),
  from_json: (value: unknown) => {
    try {
      return JSON.parse(str(value));
    } catch (error) {
      throw new FilterError(`from_json: ${(error as Error).message}`);
    }
  },
  to_yaml: (value: unknown) => stringifyYaml(value ?? null),
  to_nice_yaml: (value: unknown) => stringifyYaml(value ?? null, { indent: 4, sortMapEntries: true }),
  from_yaml: (value: unknown) => parseYaml(str(value)),
  b64encode: (value: unknown) => Buffer.from(str(value), 'utf8').toString('base64'),
  b64decode: (value: unknown) => Buffer.from(str(value), 'base64').toString('utf8'),
  regex_replace: (
    value: unknown,
    pattern: unknown,
    replacement: unknown = '',
    ignorecase?: unknown,
    multiline?: unknown,
  ) => str(value).replace(regex(pattern, 'g', ignorecase, multiline), pythonReplacement(str(replacement))),
  regex_search: (value: unknown, pattern: unknown, ...groups: unknown[]) => {
    const match = regex(pattern, '').exec(str(value));
    if (!match) return null;
    const wanted = groups.filter((g): g is string => typeof g === 'string');
    if (wanted.length === 0) return match[0];
    return wanted.map((g) => {
      const named = /^\\g<(\w+)>$/.exec(g);
      if (named) return /^\d+$/.test(named[1]!) ? match[Number(named[1])] : match.groups?.[named[1]!];
      const numbered = /^\\(\d+)$/.exec(g);
      return numbered ? match[Number(numbered[1])] : undefined;
    });
  },
  regex_findall: (value: unknown, pattern: unknown) => {
    const re = regex(pattern, 'g');
    return [...str(value).matchAll(re)].map((m) => (m.length > 2 ? m.slice(1) : (m[1] ?? m[0])));
  },
  bool: toBool,
  int: (value: unknown, fallback = 0) => {
    if (typeof value === 'boolean') return value ? 1 : 0;
    const n = typeof value === 'number' ? Math.trunc(value) : Number.parseInt(str(value).trim(), 10);
    return Number.isNaN(n) ? fallback : n;
  },
  float: (value: unknown, fallback = 0) => {
    const n = typeof value === 'number' ? value : Number.parseFloat(str(value));
    return Number.isNaN(n) ? fallback : n;
  },
  string: (value: unknown) => str(value),
  quote: shellQuote,
  'ansible.builtin.quote': shellQuote,
  'ansible.windows.quote': windowsQuote,
  basename: (value: unknown) => posix.basename(str(value)),
  dirname: (value: unknown) => posix.dirname(str(value)),
  split: (value: unknown, sep?: string) =>
    sep === undefined ? str(value).trim().split(/\s+/).filter(Boolean) : str(value).split(sep),
  unique: (value: unknown) => [...new Set(Array.isArray(value) ? value : [])],
  flatten: (value: unknown) => (Array.isArray(value) ? value.flat(Number.POSITIVE_INFINITY) : value),
  dict2items: (value: unknown) =>
    Object.entries((value ?? {}) as object).map(([key, v]) => ({ key, value: v })),
  items2dict: (value: unknown) =>
    Object.fromEntries(
      (Array.isArray(value) ? value : []).map((item: { key: string; value: unknown }) => [
        item.key,
        item.value,
      ]),
    ),
  combine,
  ternary: (value: unknown, yes: unknown, no: unknown) => (pythonTruthy(value) ? yes : no),
  hash: (value: unknown, algorithm = 'sha1') =>
    createHash(String(algorithm)).update(str(value)).digest('hex'),
  type_debug: (value: unknown) =>
    Array.isArray(value)
      ? 'list'
      : value === null
        ? 'NoneType'
        : typeof value === 'object'
          ? 'dict'
          : typeof value === 'number'
            ? Number.isInteger(value)
              ? 'int'
              : 'float'
            : typeof value === 'boolean'
              ? 'bool'
              : 'str',
};
FILTERS['d'] = FILTERS['default']!;

const resultField = (value: unknown, field: string) =>
  !!value && typeof value === 'object' && pythonTruthy((value as Record<string, unknown>)[field]);

/** Jinja/Ansible tests (`x is defined`, `result is failed`, `x is match(...)`). */
export const TESTS: Record<string, (...args: any[]) => boolean> = {
  defined: (value: unknown) => value !== undefined,
  undefined: (value: unknown) => value === undefined,
  none: (value: unknown) => value === null,
  failed: (value: unknown) => resultField(value, 'failed'),
  failure: (value: unknown) => resultField(value, 'failed'),
  succeeded: (value: unknown) => !resultField(value, 'failed'),
  success: (value: unknown) => !resultField(value, 'failed'),
  changed: (value: unknown) => resultField(value, 'changed'),
  change: (value: unknown) => resultField(value, 'changed'),
  skipped: (value: unknown) => resultField(value, 'skipped'),
  skip: (value: unknown) => resultField(value, 'skipped'),
  match: (value: unknown, pattern: unknown, ignorecase?: unknown) => {
    const m = regex(pattern, '', ignorecase).exec(str(value));
    return !!m && m.index === 0;
  },
  search: (value: unknown, pattern: unknown, ignorecase?: unknown) =>
    regex(pattern, '', ignorecase).test(str(value)),
  regex: (value: unknown, pattern: unknown, ignorecase?: unknown) =>
    regex(pattern, '', ignorecase).test(str(value)),
  boolean: (value: unknown) => typeof value === 'boolean',
  mapping: (value: unknown) => isPlainObject(value),
  sequence: (value: unknown) => Array.isArray(value) || typeof value === 'string',
  in: (value: unknown, container: unknown) =>
    Array.isArray(container) || typeof container === 'string'
      ? container.includes(value as never)
      : isPlainObject(container) && String(value) in (container as object),
};
