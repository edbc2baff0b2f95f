import { rm } from 'node:fs/promises';
import { makeTempDir, makeTempDirSync } from '../../scripts/lab/temp-dir.js';

// One list per test file's process (vitest runs each file in its own worker with its own modules;
// the global symbol keeps one list even if this module were loaded twice).
const KEY = Symbol.for('kubemix.test-temp-dirs');
const holder = globalThis as Record<symbol, string[] | undefined>;
const made: string[] = holder[KEY] ?? [];
holder[KEY] = made;

/**
 * A fresh temporary directory `kmx-<purpose>-XXXXXX` for a test. It is removed after the test
 * file, passed or failed (test/setup/per-file.ts calls {@link removeTestTempDirs}); a test may
 * remove it earlier itself.
 */
export async function testTempDir(purpose: string): Promise<string> {
  const dir = await makeTempDir(purpose);
  made.push(dir);
  return dir;
}

/** {@link testTempDir} for synchronous code (module top level, sync helpers). */
export function testTempDirSync(purpose: string): string {
  const dir = makeTempDirSync(purpose);
  made.push(dir);
  return dir;
}

/** Removes every directory {@link testTempDir} made in this test file. */
export async function removeTestTempDirs(): Promise<void> {
  const dirs = made.splice(0);
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
}
