import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { kmxNetns, labClaims } from '../../scripts/lab/leftovers.js';
import { isRunning } from '../engine/helpers.js';
import { testTempDir } from '../helpers/temp.js';

// The end-of-suite check judges every other test: here it judges two fixture test files run by a
// nested vitest with the suite's own setup (fixtures/hygiene/vitest.config.ts). The nested run's
// temp directory lies inside this file's, so its snapshot sees only its own temp paths.
const root = fileURLToPath(new URL('../..', import.meta.url));
const vitest = join(root, 'node_modules/vitest/vitest.mjs');

function runFixture(file: string, env: Record<string, string> = {}) {
  return execa('node', [vitest, 'run', '--config', 'fixtures/hygiene/vitest.config.ts', file], {
    cwd: root,
    reject: false,
    all: true,
    env: { ...env, NO_COLOR: '1', FORCE_COLOR: '0', CI: 'true' },
  });
}

describe('the leftover check', () => {
  it('fails a test file that leaves a temp dir, a process and a lab, names each, and cleans them up', async () => {
    const work = await testTempDir('leak-check');
    const pidFile = join(work, 'pid');
    const labFile = join(work, 'lab');
    const run = await runFixture('fixtures/hygiene/leaky.fixture.ts', {
      KMX_LEAK_PID_FILE: pidFile,
      KMX_LEAK_LAB_FILE: labFile,
    });
    const output = run.all ?? '';
    const pid = Number((await readFile(pidFile, 'utf8')).trim());
    const labDir = (await readFile(labFile, 'utf8')).trim();
    expect(run.exitCode, output).toBe(1);
    expect(output).toContain('fixtures/hygiene/leaky.fixture.ts left behind:');
    expect(output).toContain(`  process ${pid} sleep 317  [killed]`);
    const lab = new RegExp(
      `  lab ${labDir} \\(lab id (\\d+): namespaces kmx-lab-\\d+-\\*, bridge kmxbr\\d+\\)  \\[stopped\\]`,
    );
    expect(output).toMatch(lab);
    expect(output).toMatch(/ {2}path \S+\/kmx-leaky-\w{6} {2}\[removed\]/);
    // And they are gone: the process, the lab's claim, namespaces and directory.
    const labId = lab.exec(output)?.[1];
    expect(isRunning(pid)).toBe(false);
    expect(labClaims().filter((c) => c.dir === labDir)).toEqual([]);
    expect(kmxNetns().filter((ns) => ns.startsWith(`kmx-lab-${labId}-`))).toEqual([]);
    expect(existsSync(labDir)).toBe(false);
  });

  it('stays quiet about a test file that removes what it makes', async () => {
    const run = await runFixture('fixtures/hygiene/tidy.fixture.ts');
    const output = run.all ?? '';
    expect(output).toMatch(/Test Files {2}1 passed \(1\)/);
    expect(output).not.toContain('left behind');
    expect(run.exitCode, output).toBe(0);
  });
});
