import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, expect } from 'vitest';
import {
  formatLeftovers,
  TEST_FILE_MARKER,
  testFileLeftovers,
  testFileMarker,
} from '../../scripts/lab/leftovers.js';
import { removeTestTempDirs } from '../helpers/temp.js';

// Runs in every test file's worker before the file (vitest `setupFiles`). Each file gets its own
// TMPDIR inside the run's directory (test/setup/global.ts) and a KMX_TEST_FILE marker that every
// process it starts inherits; after the file (its own afterAll hooks have run), whatever is still
// there was left behind by this file: the file fails, naming each thing, and it is cleaned up.
const root = fileURLToPath(new URL('../..', import.meta.url));
const runDir = process.env['KMX_TEST_RUN_DIR'];
const testPath = expect.getState().testPath;

if (runDir && testPath) {
  const testFile = relative(root, testPath);
  // Short names: Unix socket paths inside (ssh-agent, the Windows simulator's twins) must stay under 108 bytes.
  const fileDir = join(runDir, createHash('sha256').update(testFile).digest('hex').slice(0, 8));
  mkdirSync(fileDir, { recursive: true, mode: 0o700 });
  writeFileSync(join(fileDir, TEST_FILE_MARKER), `${testFile}\n`);
  process.env['TMPDIR'] = fileDir;
  const marker = testFileMarker(process.env['KMX_TEST_RUN'] ?? '', testFile);
  process.env['KMX_TEST_FILE'] = marker;

  afterAll(async () => {
    await removeTestTempDirs();
    const found = await testFileLeftovers({ fileDir, testFile, marker });
    if (found.length > 0)
      throw new Error(
        `${formatLeftovers(found)}\nA test removes what it makes, also when it fails (afterEach/afterAll/finally).`,
      );
  }, 60_000);
}
