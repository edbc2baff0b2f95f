import { THROTTLE_NOT_INTEGER, throttleValue } from '../engine/throttle.js';
import { isTemplate } from '../template/index.js';
import type { Condition } from './types.js';
import type { YamlSource } from './yaml-source.js';

/** A YAML path: keys and list indexes from the document root. */
export type Path = Array<string | number>;

export const isRecord = (v: unknown): v is Record<string, unknown> =>
  !!v && typeof v === 'object' && !Array.isArray(v);

/** Whether a value (or any key or value inside it) holds a `{{ }}` template. */
export function containsTemplate(value: unknown): boolean {
  if (typeof value === 'string') return isTemplate(value);
  if (Array.isArray(value)) return value.some(containsTemplate);
  if (isRecord(value))
    return Object.entries(value).some(([k, v]) => containsTemplate(k) || containsTemplate(v));
  return false;
}

/**
 * Reads one keyword's value as the type the keyword takes. Absent (undefined or null) gives
 * undefined; a wrong type is reported at its path on the source and also gives undefined, so
 * parsing goes on and every problem of a file is reported at once.
 */
export class FieldReader {
  constructor(readonly source: YamlSource) {}

  bool(value: unknown, path: Path): boolean | undefined {
    if (value === undefined || value === null) return undefined;
    if (typeof value === 'boolean') return value;
    this.source.report(path, 'must be a boolean (yes/no, true/false)');
    return undefined;
  }

  string(value: unknown, path: Path): string | undefined {
    if (value === undefined || value === null) return undefined;
    if (typeof value === 'string' && value !== '') return value;
    if (typeof value === 'number') return String(value);
    this.source.report(path, 'must be a non-empty string');
    return undefined;
  }

  stringList(value: unknown, path: Path): string[] {
    if (value === undefined || value === null) return [];
    if (typeof value === 'string')
      return value
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean);
    if (typeof value === 'number') return [String(value)];
    if (Array.isArray(value) && value.every((v) => typeof v === 'string' || typeof v === 'number'))
      return value.map(String);
    this.source.report(path, 'must be a string or a list of strings');
    return [];
  }

  condition(value: unknown, path: Path): Condition | undefined {
    if (value === undefined || value === null) return undefined;
    if (typeof value === 'string' || typeof value === 'boolean') return value;
    if (typeof value === 'number') return String(value);
    if (Array.isArray(value) && value.every((v) => typeof v === 'string' || typeof v === 'boolean'))
      return value as Array<string | boolean>;
    this.source.report(path, 'must be a condition (an expression string, a boolean, or a list of them)');
    return undefined;
  }

  number(value: unknown, path: Path): number | undefined {
    if (value === undefined || value === null) return undefined;
    if (typeof value === 'number' && Number.isFinite(value) && value >= 0) return value;
    if (typeof value === 'string' && /^\d+(\.\d+)?$/.test(value.trim())) return Number(value);
    this.source.report(path, 'must be a number >= 0');
    return undefined;
  }

  /** `throttle`: an integer (0 = no limit) or a template Ansible renders per host. */
  throttle(value: unknown, path: Path): number | string | undefined {
    if (value === undefined || value === null) return undefined;
    if (typeof value === 'string' && isTemplate(value)) return value;
    const n = throttleValue(value);
    if (n !== undefined) return n;
    this.source.report(path, `must be an integer (or a {{ template }}): ${THROTTLE_NOT_INTEGER}`);
    return undefined;
  }

  vars(value: unknown, path: Path): Record<string, unknown> {
    if (value === undefined || value === null) return {};
    if (isRecord(value)) {
      for (const key of Object.keys(value)) {
        if (!/^[A-Za-z_]\w*$/.test(key))
          this.source.report([...path, key], `"${key}" is not a valid variable name`, { key: true });
      }
      return value;
    }
    this.source.report(path, 'must be a mapping of variable names to values');
    return {};
  }

  environment(value: unknown, path: Path): Record<string, unknown> | string | undefined {
    if (value === undefined || value === null) return undefined;
    if (isRecord(value) || (typeof value === 'string' && isTemplate(value))) return value;
    this.source.report(path, 'must be a mapping of environment variables (or a {{ template }})');
    return undefined;
  }
}
