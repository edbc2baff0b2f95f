import { mkdtempSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * The prefix of every temporary path kubemix's tests, labs, fixtures and benchmarks create. All of
 * them go through {@link makeTempDir} / {@link makeTempDirSync}, so this one prefix finds them
 * all (test/lab/temp-dir.test.ts keeps it that way), and the leftover check
 * (scripts/lab/leftovers.ts) knows what is ours.
 */
export const TEMP_PREFIX = 'kmx-';

/**
 * Prefixes older runs used before every temporary path went through this helper; the leftover
 * check still recognises them in /tmp.
 */
export const FORMER_TEMP_PREFIXES = ['kubemix-'] as const;

function prefixFor(purpose: string, parent = tmpdir()): string {
  if (!/^[a-z0-9][a-z0-9-]*$/.test(purpose))
    throw new TypeError(`temp dir purpose must be lower-case words joined by "-", got "${purpose}"`);
  return join(parent, `${TEMP_PREFIX}${purpose}-`);
}

/**
 * Makes a fresh private (0700) directory `$TMPDIR/kmx-<purpose>-XXXXXX`. Whoever calls this
 * removes it (tests: see test/helpers/temp.ts, which removes its directories for you). `parent`
 * replaces $TMPDIR for a caller that must not take the process's (a global setup, whose TMPDIR is
 * not the run's directory).
 */
export function makeTempDir(purpose: string, parent?: string): Promise<string> {
  return mkdtemp(prefixFor(purpose, parent));
}

/** {@link makeTempDir} for synchronous code. */
export function makeTempDirSync(purpose: string): string {
  return mkdtempSync(prefixFor(purpose));
}
