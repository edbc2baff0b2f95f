import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { UsageError } from '../errors/index.js';
import { tokenize } from './free-form.js';
import { ANSIBLE_YAML } from './yaml-source.js';

/**
 * Parses `-e/--extra-vars` values as ansible-playbook does: `key=value key2=value2` (strings),
 * a JSON or YAML mapping (`{"a": 1}`), or `@file.yml`. Later values win.
 */
export function parseExtraVars(values: string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const value of values) {
    const text = value.trim();
    if (text === '') continue;
    if (text.startsWith('@')) {
      let content: string;
      try {
        content = readFileSync(text.slice(1), 'utf8');
      } catch (error) {
        throw new UsageError(`--extra-vars ${text}: cannot read the file: ${(error as Error).message}`);
      }
      Object.assign(out, mapping(content, text));
    } else if (text.startsWith('{')) {
      Object.assign(out, mapping(text, '--extra-vars'));
    } else {
      for (const token of tokenize(text)) {
        const eq = token.text.indexOf('=');
        if (eq <= 0)
          throw new UsageError(`--extra-vars: "${token.text}" is not key=value (or give JSON, or @file)`);
        const key = token.text.slice(0, eq);
        if (!/^[A-Za-z_]\w*$/.test(key))
          throw new UsageError(`--extra-vars: "${key}" is not a valid variable name`);
        let v = token.text.slice(eq + 1);
        if (v.length >= 2 && (v[0] === '"' || v[0] === "'") && v.at(-1) === v[0]) v = v.slice(1, -1);
        out[key] = v;
      }
    }
  }
  return out;
}

function mapping(text: string, where: string): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = parse(text, ANSIBLE_YAML);
  } catch (error) {
    throw new UsageError(`${where}: not valid JSON/YAML: ${(error as Error).message.split('\n')[0]}`);
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed))
    throw new UsageError(`${where}: extra vars must be a mapping`);
  return parsed as Record<string, unknown>;
}
