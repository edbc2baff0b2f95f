/**
 * Argument checks shared by modules. Each throws a TypeError naming the module and the
 * argument, which the playbook parser and runner turn into one-line errors.
 */

export type RawArgs = Record<string, unknown>;

/** Rejects arguments the module does not know (Ansible: "Unsupported parameters"). */
export function rejectUnknown(module: string, raw: RawArgs, known: readonly string[]): void {
  const unknown = Object.keys(raw).filter((key) => !known.includes(key));
  if (unknown.length > 0) {
    throw new TypeError(
      `${module}: unsupported argument${unknown.length > 1 ? 's' : ''} ${unknown.map((k) => `"${k}"`).join(', ')} (supported: ${known.join(', ')})`,
    );
  }
}

export function requireString(module: string, raw: RawArgs, key: string): string {
  const value = optionalString(module, raw, key);
  if (value === undefined || value === '') throw new TypeError(`${module}: "${key}" is required`);
  return value;
}

export function optionalString(module: string, raw: RawArgs, key: string): string | undefined {
  const value = raw[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'number') return String(value);
  if (typeof value !== 'string') throw new TypeError(`${module}: "${key}" must be a string`);
  return value;
}

/** Booleans the Ansible way: true/false, yes/no, on/off, 1/0. */
export function optionalBool(module: string, raw: RawArgs, key: string): boolean | undefined {
  const value = raw[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'boolean') return value;
  if (typeof value === 'number' && (value === 0 || value === 1)) return value === 1;
  if (typeof value === 'string') {
    const v = value.trim().toLowerCase();
    if (['yes', 'true', 'on', '1', 'y'].includes(v)) return true;
    if (['no', 'false', 'off', '0', 'n'].includes(v)) return false;
  }
  throw new TypeError(`${module}: "${key}" must be a boolean (yes/no, true/false)`);
}

export function optionalNumber(module: string, raw: RawArgs, key: string, min = 0): number | undefined {
  const value = raw[key];
  if (value === undefined || value === null) return undefined;
  const n =
    typeof value === 'number'
      ? value
      : typeof value === 'string' && value.trim() !== ''
        ? Number(value)
        : Number.NaN;
  if (!Number.isFinite(n) || n < min) throw new TypeError(`${module}: "${key}" must be a number >= ${min}`);
  return n;
}

export function oneOf<T extends string>(
  module: string,
  raw: RawArgs,
  key: string,
  allowed: readonly T[],
  fallback: T,
): T {
  const value = raw[key];
  if (value === undefined || value === null) return fallback;
  if (typeof value !== 'string' || !allowed.includes(value as T)) {
    throw new TypeError(`${module}: "${key}" must be one of ${allowed.join(', ')}`);
  }
  return value as T;
}

/** A string or a list of strings (Ansible's `name: [a, b]` or `name: a,b`). */
export function stringList(module: string, raw: RawArgs, key: string): string[] | undefined {
  const value = raw[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'string')
    return value
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
  if (Array.isArray(value) && value.every((v) => typeof v === 'string' || typeof v === 'number'))
    return value.map(String);
  throw new TypeError(`${module}: "${key}" must be a string or a list of strings`);
}

/**
 * File modes as octal text without leading zeros (`stat -c %a` style). YAML 1.1 reads `0644`
 * as the octal number 420, which Ansible accepts too; strings are read as octal.
 */
export function optionalMode(module: string, raw: RawArgs, key = 'mode'): string | undefined {
  const value = raw[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'number' && Number.isInteger(value) && value >= 0 && value <= 0o7777)
    return value.toString(8);
  if (typeof value === 'string' && /^0?[0-7]{3,4}$/.test(value.trim()))
    return Number.parseInt(value.trim(), 8).toString(8);
  throw new TypeError(
    `${module}: "${key}" must be an octal mode such as '0644' (symbolic modes are not supported)`,
  );
}
