import type { z } from 'zod';
import { ENV_NAME_MESSAGE } from './field-patterns.js';
import { SECRET_REF_MESSAGE } from './schema.js';
import type { SpecPath } from './spec-view.js';

/** Credential fields that hold secrets: whatever is wrong inside them gets SECRET_REF_MESSAGE. */
const SECRET_KEYS = new Set(['privateKey', 'passphrase', 'password', 'accessKeyId', 'secretAccessKey']);

type RawIssue = z.core.$ZodRawIssue;

/** Names a value's kind without ever showing the value (it may be a secret). */
function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'a mapping';
  return `a ${typeof value}`;
}

function expectedName(expected: string): string {
  if (expected === 'int') return 'an integer';
  if (expected === 'object') return 'a mapping';
  if (expected === 'array') return 'a list';
  return `a ${expected}`;
}

function bound(issue: { origin?: string; inclusive?: boolean }, op: '>' | '<', limit: unknown): string {
  const sign = `${op}${issue.inclusive === false ? '' : '='}`;
  if (issue.origin === 'array')
    return op === '>' ? `must list at least ${limit} item(s)` : `must list at most ${limit} item(s)`;
  if (issue.origin === 'string')
    return op === '>' ? `must be at least ${limit} character(s)` : `must be at most ${limit} character(s)`;
  return `must be ${sign} ${limit}`;
}

const quote = (v: unknown) => JSON.stringify(v);

/**
 * Per-parse zod error map: one short line per problem, never echoing the input value.
 * Messages written in the schema take precedence over these.
 */
export function specErrorMap(issue: RawIssue): string | undefined {
  switch (issue.code) {
    case 'invalid_type':
      if (issue.input === undefined) return `is required (${expectedName(issue.expected)})`;
      // YAML reads 1.31 or 2022 as numbers: say how to write a string.
      if (issue.expected === 'string' && typeof issue.input === 'number')
        return 'must be a string, got a number (put it in quotes)';
      return `must be ${expectedName(issue.expected)}, got ${kindOf(issue.input)}`;
    case 'too_small':
      return bound(issue, '>', issue.minimum);
    case 'too_big':
      return bound(issue, '<', issue.maximum);
    case 'invalid_value':
      if (typeof issue.input === 'number' && issue.values.includes(String(issue.input))) {
        return `must be one of ${issue.values.map(quote).join(', ')}, written as a string (put it in quotes)`;
      }
      return issue.values.length === 1
        ? `must be ${quote(issue.values[0])}`
        : `must be one of ${issue.values.map(quote).join(', ')}`;
    case 'invalid_format':
      return issue.format === 'url' ? 'must be a URL' : `must match the ${issue.format} format`;
    case 'invalid_union': {
      const options = (issue as { options?: unknown[] }).options;
      return options
        ? `must be one of ${options.map(quote).join(', ')}`
        : 'matches none of the allowed forms';
    }
    default:
      return undefined;
  }
}

/** A schema problem with its path, ready to be located in the source. */
export interface PathIssue {
  path: SpecPath;
  message: string;
  /** Locate the mapping key rather than its value (unknown keys). */
  atKey?: boolean;
}

/**
 * Turns zod issues into one issue per problem: an unknown key becomes `unknown key "x"` at the
 * key's own path, and anything wrong inside a secret field becomes one SECRET_REF_MESSAGE at that
 * field (so neither the value nor a key written inside it is ever shown).
 */
export function fromZodIssues(issues: readonly z.core.$ZodIssue[]): PathIssue[] {
  const out: PathIssue[] = [];
  const seen = new Set<string>();
  const push = (issue: PathIssue) => {
    const key = `${issue.path.join('.')}\n${issue.message}`;
    if (seen.has(key)) return;
    seen.add(key);
    out.push(issue);
  };
  for (const issue of issues) {
    const path = issue.path.map((p) => (typeof p === 'symbol' ? String(p.description) : p));
    const expanded: PathIssue[] =
      issue.code === 'unrecognized_keys'
        ? issue.keys.map((key) => ({ path: [...path, key], message: `unknown key "${key}"`, atKey: true }))
        : [{ path, message: issue.message }];
    for (const item of expanded) {
      const secretAt = item.path.findIndex(
        (p, i) => typeof p === 'string' && SECRET_KEYS.has(p) && item.path[i - 1] === 'credentials',
      );
      // A bad variable name inside a reference is named as such: the message shows no value.
      if (secretAt >= 0 && item.message !== ENV_NAME_MESSAGE)
        push({ path: item.path.slice(0, secretAt + 1), message: SECRET_REF_MESSAGE });
      else push(item);
    }
  }
  return out;
}
