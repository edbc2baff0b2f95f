import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';

/** Pinned versions by name (playbooks/versions.yaml), after spec overrides. */
export type Versions = Readonly<Record<string, string>>;

/** Path of the versions file shipped in the package (works from src/ under vitest and from dist/src/). */
export function versionsFilePath(): string {
  const here = fileURLToPath(new URL('.', import.meta.url));
  const depth = here.includes('/dist/src/') ? '../../../' : '../../';
  return fileURLToPath(new URL(`${depth}playbooks/versions.yaml`, import.meta.url));
}

/** Reads the pinned versions; overrides (from the spec's `versions:`) win. */
export function loadVersions(overrides: Record<string, string> = {}): Versions {
  const raw = parse(readFileSync(versionsFilePath(), 'utf8')) as Record<string, unknown>;
  const versions: Record<string, string> = {};
  for (const [key, value] of Object.entries(raw)) versions[key] = String(value);
  return Object.freeze({ ...versions, ...overrides });
}
