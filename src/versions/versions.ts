import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { SpecError, type SpecIssue } from '../errors/index.js';

/** Pinned versions by name (playbooks/versions.yaml), after spec overrides. */
export type Versions = Readonly<Record<string, string>>;

/**
 * Path of the versions file shipped in the package: the nearest `playbooks/versions.yaml` above this
 * module, so it is found from src/ under vitest, from dist/src/, and from a bundle that joined
 * this module with others (the lab's stand-ins, scripts/lab/bundle-standins.ts).
 */
export function versionsFilePath(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const candidate = join(dir, 'playbooks', 'versions.yaml');
    if (existsSync(candidate)) return candidate;
    const parent = dirname(dir);
    if (parent === dir)
      throw new Error(`playbooks/versions.yaml not found above ${fileURLToPath(import.meta.url)}`);
    dir = parent;
  }
}

/**
 * Reads the pinned versions; overrides (from the spec's `versions:`) win. A version pinned with a
 * digest (an `<entry>-sha256` beside it) can only be overridden together with that digest: the new
 * version's file is another file, and nothing would vouch for it.
 *
 * @param source where the overrides come from (the spec file), for the error message
 * @throws SpecError naming `versions.<entry>` for every such override without its digest
 */
export function loadVersions(overrides: Record<string, string> = {}, source = 'spec'): Versions {
  const raw = parse(readFileSync(versionsFilePath(), 'utf8')) as Record<string, unknown>;
  const versions: Record<string, string> = {};
  for (const [key, value] of Object.entries(raw)) versions[key] = String(value);
  const issues: SpecIssue[] = Object.keys(overrides)
    .filter((key) => `${key}-sha256` in versions && !(`${key}-sha256` in overrides))
    .map((key) => ({
      file: source,
      path: `versions.${key}`,
      message: `is pinned with a SHA-256: also give versions.${key}-sha256, the digest of the file for ${overrides[key]}`,
    }));
  if (issues.length > 0) throw new SpecError(issues);
  return Object.freeze({ ...versions, ...overrides });
}
