import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { packageRoot } from './package-root.js';

/**
 * The parsed forms of kubemix's own YAML files (the cluster playbooks, playbooks/artifacts.yaml
 * and versions.yaml), made once at `npm run build` (scripts/cache-parsed-files.ts) so that a
 * command does not parse ~100 KB of YAML at every start: the `yaml` package took ~250 ms of the
 * ~600 ms of CPU that `kubemix plan` or `status` used (#25). An entry is used only when the file's SHA-256 is the one it was made
 * from, so an edited file is parsed anew, never served stale. Package paths inside a value (a
 * playbook step's source file) are kept relative to the package root, so the cache stays right
 * wherever the package is installed.
 */
export const PARSED_FILES = join('dist', 'parsed-files.json');

export interface ParsedFileEntry {
  sha256: string;
  /** The value as JSON, package paths marked with ROOT_MARK. */
  json: string;
}

/** Stands for the package root inside cached values (no path or playbook text holds a NUL). */
const ROOT_MARK = '\u0000kubemix-package\u0000';

let entries: Map<string, ParsedFileEntry> | undefined;
let recording: Map<string, ParsedFileEntry> | undefined;

function cached(): Map<string, ParsedFileEntry> {
  if (entries) return entries;
  try {
    const text = readFileSync(join(packageRoot(), PARSED_FILES), 'utf8');
    entries = new Map(Object.entries(JSON.parse(text) as Record<string, ParsedFileEntry>));
  } catch {
    // No build yet (vitest runs the sources), or a damaged file: parse everything.
    entries = new Map();
  }
  return entries;
}

/**
 * `parse()`'s value for the package file at `path` whose content is `text`: from the build's cache
 * when it was made from this very content, else parsed now. A file outside the package is
 * always parsed. The value must be plain JSON data (what YAML and zod produce).
 */
export function parsedPackageFile<T>(
  path: string,
  text: string,
  parse: () => T,
  /** The build's entries (a test gives its own). */
  built: ReadonlyMap<string, ParsedFileEntry> = cached(),
): T {
  const root = packageRoot();
  const key = relative(root, path).split(sep).join('/');
  if (key.startsWith('../') || key === '..') return parse();
  const entry = recording ? undefined : built.get(key);
  if (entry?.sha256 === sha256Of(text)) return decodeParsedFile<T>(entry, root);
  const value = parse();
  recording?.set(key, encodeParsedFile(text, value, root));
  return value;
}

const sha256Of = (text: string) => createHash('sha256').update(text).digest('hex');

/** The cache entry of `value`, parsed from `text`, with paths under `root` made relative. */
export function encodeParsedFile(text: string, value: unknown, root: string): ParsedFileEntry {
  return {
    sha256: sha256Of(text),
    json: JSON.stringify(value, (_key, v) =>
      typeof v === 'string' && v.startsWith(`${root}/`) ? ROOT_MARK + v.slice(root.length) : v,
    ),
  };
}

/** An entry's value, fresh (callers may change it), with its package paths under `root`. */
export function decodeParsedFile<T>(entry: ParsedFileEntry, root: string): T {
  return JSON.parse(entry.json, (_key, value) =>
    typeof value === 'string' && value.startsWith(ROOT_MARK) ? root + value.slice(ROOT_MARK.length) : value,
  ) as T;
}

/** From now on every parsedPackageFile parses and is recorded (the build's cache maker). */
export function recordParsedFiles(): void {
  recording = new Map();
}

/** Writes what was recorded to dist/parsed-files.json; returns the keys written. */
export function writeParsedFiles(): string[] {
  if (!recording) throw new Error('recordParsedFiles() was not called');
  writeFileSync(
    join(packageRoot(), PARSED_FILES),
    `${JSON.stringify(Object.fromEntries([...recording].sort(([a], [b]) => a.localeCompare(b))))}\n`,
  );
  return [...recording.keys()].sort();
}
