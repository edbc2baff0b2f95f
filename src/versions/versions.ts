import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { SpecError, type SpecIssue } from '../errors/index.js';
import { packageRoot } from '../fs/package-root.js';
import { parsedPackageFile } from '../fs/parsed-files.js';

/** Pinned versions by name (playbooks/versions.yaml), after spec overrides. */
export type Versions = Readonly<Record<string, string>>;

/** Path of the versions file shipped in the package. */
export function versionsFilePath(): string {
  return join(packageRoot(), 'playbooks', 'versions.yaml');
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
  const path = versionsFilePath();
  const text = readFileSync(path, 'utf8');
  // Every command reads the pins: parsed at the build (src/fs/parsed-files.ts) while unchanged.
  const versions = parsedPackageFile(path, text, () => {
    const pins: Record<string, string> = {};
    for (const [key, value] of Object.entries(parse(text) as Record<string, unknown>))
      pins[key] = String(value);
    return pins;
  });
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
