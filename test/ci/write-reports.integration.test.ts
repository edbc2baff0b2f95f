import { readdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ArtifactLogs } from '../../src/ci/artifact-logs.js';
import { finalExitCode, writeReports } from '../../src/ci/write-reports.js';
import type { PlanTask } from '../../src/types/plan.js';
import { localHosts, makePlan, shell, task } from '../engine/helpers.js';
import { testTempDir } from '../helpers/temp.js';
import { runForSummary, validateJunit } from './helpers.js';

const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })));
});

// The secret scan is the second line of defence: a secret the engine could not know (a step
// printed it, nothing registered it as secret) reaches the events and logs, and the scan catches it.
const FAKE_KEY = 'AKIAIOSFODNN7EXAMPLE';

/**
 * Runs `buildTasks` on node-a (a local host) and then a one-step teardown through the real engine,
 * with the artifact logs subscribed as `kubemix ci` does, then writes the reports (the secret scan
 * included) to a fresh out directory.
 */
async function buildAndReport(buildTasks: PlanTask[]) {
  const dir = await testTempDir('ci-reports');
  dirs.push(dir);
  const outDir = join(dir, 'out');
  const logs = await ArtifactLogs.open(outDir);
  const hosts = localHosts('node-a');
  const input = await runForSummary({
    build: makePlan(buildTasks, hosts),
    teardown: makePlan([task('cleanup', [], ['node-a'], [shell('reset', 'true')])], hosts),
    clusterDir: join(dir, 'cluster'),
    listeners: [logs.listener],
  });
  await logs.close();
  // What the scan adds is left for writeReports to fill in.
  const { secretFindings: _f, filesScanned: _n, reportingMs: _r, ...rest } = input;
  const written = await writeReports({ outDir, input: rest, knownSecrets: [], reportingMs: 0 });
  return { outDir, written };
}

describe('the end of a CI run', () => {
  it('redacts a secret the engine did not know, everywhere, and fails the run', async () => {
    const { outDir, written } = await buildAndReport([
      task('wait-for-hosts', [], ['node-a'], [shell('connect', 'true')]),
      task(
        'prepare-linux',
        ['wait-for-hosts'],
        ['node-a'],
        [shell('leak', `echo "key ${FAKE_KEY}" >&2; exit 2`)],
      ),
    ]);

    const files = (await readdir(outDir, { recursive: true, withFileTypes: true })).filter((e) => e.isFile());
    expect(files.map((f) => f.name).sort()).toEqual([
      'events.jsonl',
      'junit.xml',
      'node-a.log',
      'report.html',
      'summary.json',
    ]);
    for (const file of files)
      expect(await readFile(join(file.parentPath, file.name), 'utf8'), file.name).not.toContain(FAKE_KEY);
    const found = written.summary.secretScan.findings.map((f) => `${f.file}: ${f.kind}`);
    expect(found).toContain('events.jsonl: AWS access key ID');
    expect(found).toContain('hosts/node-a.log: AWS access key ID');
    // The failure excerpt carried it from memory into the summary: found there too.
    expect(found).toContain('summary.json: AWS access key ID');
    expect(written.lateFindings).toEqual([]);
    expect(written.summary.failures[0]?.outputTail).toBe('key ***');
    // The run fails (it failed anyway here; the scan's own test case says why too).
    expect(finalExitCode(written)).toBe(1);
    const xml = await readFile(join(outDir, 'junit.xml'), 'utf8');
    expect((await validateJunit(xml)).ok).toBe(true);
    expect(xml).toMatch(
      /<testcase name="secret scan" classname="kubemix.artifacts" time="[\d.]+">\s*<failure message="\d+ secret\(s\) found in \d+ artifact files and redacted" type="secret-found">/,
    );
  });

  it('fails a run that passed when the scan finds a secret', async () => {
    const { written } = await buildAndReport([
      task('prepare-linux', [], ['node-a'], [shell('chatty', `echo "using ${FAKE_KEY}"`)]),
    ]);
    expect(written.summary.failures).toEqual([]);
    expect([written.summary.outcome, finalExitCode(written)]).toEqual(['failed', 1]);
    expect(written.summary.message).toMatch(
      /^the secret scan found \d+ secret\(s\) in the artifacts \(redacted\)$/,
    );
  });
});
