import { readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { flakyTasks, historyFileName, recordHistory } from '../../src/ci/history.js';
import { renderReport } from '../../src/ci/report-html.js';
import type { CiSummary } from '../../src/ci/summary-types.js';
import { localHosts, makePlan, shell, task } from '../engine/helpers.js';
import { testTempDir } from '../helpers/temp.js';
import { runAndSummarise } from './helpers.js';

const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })));
});
const dir = async () => {
  const d = await testTempDir('ci-history');
  dirs.push(d);
  return d;
};

const hosts = localHosts('node-a');
/** A real run whose `prepare-linux` runs `cmd` (with `retries`), then a teardown. */
async function run(cmd: string, retries = 0): Promise<CiSummary> {
  const build = makePlan(
    [
      task('wait-for-hosts', [], ['node-a'], [shell('connect', 'true')]),
      task('prepare-linux', ['wait-for-hosts'], ['node-a'], [shell('install', cmd, { retries, delayMs: 1 })]),
    ],
    hosts,
  );
  const teardown = makePlan([task('cleanup', [], ['node-a'], [shell('reset', 'true')])], hosts);
  return runAndSummarise({ build, teardown, clusterDir: await dir() });
}

describe('--history', () => {
  it('keeps the last N summaries, oldest removed first, and leaves other files alone', async () => {
    const history = await dir();
    await writeFile(join(history, 'notes.txt'), 'mine\n');
    const runs = [await run('true'), await run('exit 3'), await run('true')];
    let kept: Awaited<ReturnType<typeof recordHistory>> | undefined;
    for (const summary of runs) kept = await recordHistory(history, summary, 2);
    expect(kept!.runs.map((r) => r.startedAt)).toEqual([runs[1]!.startedAt, runs[2]!.startedAt]);
    expect((await readdir(history)).sort()).toEqual(
      [historyFileName(runs[1]!), historyFileName(runs[2]!), 'notes.txt'].sort(),
    );
    expect(await readFile(join(history, 'notes.txt'), 'utf8')).toBe('mine\n');
  });

  it('names unreadable summaries instead of failing', async () => {
    const history = await dir();
    const broken = '20260101T000000.000Z-lab.json';
    await writeFile(join(history, broken), '{ not json');
    const kept = await recordHistory(history, await run('true'), 10);
    expect(kept.unreadable).toEqual([broken]);
    expect(kept.runs).toHaveLength(1);
  });

  it('finds flaky tasks: failing in some runs only, or passing only after a retry', async () => {
    const marker = join(await dir(), 'tried');
    const flakyOnce = `test -f ${marker} || { touch ${marker}; exit 1; }`;
    const runs = [await run('true'), await run('exit 3'), await run(flakyOnce, 1)];
    expect(runs.map((r) => r.tasks.find((t) => t.name === 'prepare-linux')?.status)).toEqual([
      'passed',
      'failed',
      'passed',
    ]);
    expect(flakyTasks(runs)).toEqual([
      { task: 'prepare-linux', failedRuns: 1, passedRuns: 2, retriedRuns: 1 },
    ]);
    expect(flakyTasks([runs[0]!])).toEqual([]);
    // The report shows the trend: each run's outcome, and the flaky task.
    const html = renderReport(runs[2]!, { history: { runs, unreadable: [] }, files: [] });
    const section = html.slice(html.indexOf('<section id="history">'));
    expect(section).toContain('History (3 runs)');
    expect([...section.matchAll(/<span class="badge (\w+)">/g)].map((m) => m[1]).slice(0, 3)).toEqual([
      'passed',
      'failed',
      'passed',
    ]);
    expect(section).toMatch(
      /<h3>Flaky tasks<\/h3>[\s\S]*<td>prepare-linux<\/td><td>1<\/td><td>2<\/td><td>1<\/td>/,
    );
  });
});
