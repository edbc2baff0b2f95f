import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { runClusterPlan } from '../../src/cluster/run-plan.js';
import { readState } from '../../src/engine/index.js';
import { isProcessAlive } from '../../src/engine/lock.js';
import { testTempDir } from '../helpers/temp.js';
import { lines, localTransports, makePlan, recorder, shell, task, waitFor } from './helpers.js';

const child = fileURLToPath(new URL('../../dist/fixtures/engine/run-plan-child.js', import.meta.url));
const cleanups: Array<() => void> = [];

beforeAll(() => {
  if (!existsSync(child)) throw new Error(`${child} is missing: run \`npm run build\` first (npm test does)`);
});

afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

describe('a run killed with SIGKILL mid-task', () => {
  it('leaves an intact state file and resumes with the interrupted task', async () => {
    const dir = await testTempDir('engine');
    const clusterDir = join(dir, 'cluster');
    const log = (name: string) => `echo ${name} >> ${dir}/log`;
    const quick = Array.from({ length: 8 }, (_, i) =>
      task(`q${i}`, i === 0 ? [] : [`q${i - 1}`], ['localhost'], [shell('q', log(`q${i}`))]),
    );
    const plan = makePlan([
      task('a', [], ['localhost'], [shell('a', log('a'))]),
      // The shell's pid is its process group (LocalTransport starts commands detached).
      task(
        'b',
        ['a'],
        ['localhost'],
        [shell('b', `${log('b')}; echo $$ > ${dir}/b.pgid; [ -f ${dir}/fast ] || sleep 30`)],
      ),
      task('c', ['b'], ['localhost'], [shell('c', log('c'))]),
      ...quick,
    ]);
    const planFile = join(dir, 'plan.json');
    await writeFile(planFile, JSON.stringify(plan));

    const proc = spawn(process.execPath, [child, planFile, clusterDir], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    cleanups.push(() => proc.kill('SIGKILL'));
    let output = '';
    proc.stdout.on('data', (d) => (output += d));
    proc.stderr.on('data', (d) => (output += d));
    await waitFor(
      async () =>
        existsSync(join(dir, 'b.pgid')) && (await readState(clusterDir))?.tasks['q7']?.status === 'done',
      20_000,
      'task b to start and the q chain to be recorded done',
    ).catch((error) => {
      throw new Error(`${(error as Error).message}\n${output}`);
    });
    const pgid = Number((await readFile(join(dir, 'b.pgid'), 'utf8')).trim());
    cleanups.push(() => killGroup(pgid));
    await killAndWait(proc);
    // The orphaned `sleep 30` of task b is not the engine's to clean up after SIGKILL; the test's.
    killGroup(pgid);

    // The state file is whole JSON and records what completed before the kill, not b.
    const raw = await readFile(join(clusterDir, 'state.json'), 'utf8');
    expect(() => JSON.parse(raw)).not.toThrow();
    const state = await readState(clusterDir);
    expect(state?.tasks['a']?.status).toBe('done');
    expect(state?.tasks['q7']?.status).toBe('done');
    expect(state?.tasks['b']).toBeUndefined();
    expect(state?.lastRun?.status).toBe('running');
    // The dead run's lock is still there, holding a pid that no longer runs.
    const lockPid = Number((await readFile(join(clusterDir, 'lock'), 'utf8')).trim());
    expect(lockPid).toBe(proc.pid);
    expect(isProcessAlive(lockPid)).toBe(false);

    await writeFile(join(dir, 'fast'), '');
    const events = recorder();
    const summary = await runClusterPlan({
      plan,
      clusterDir,
      transports: localTransports,
      onEvent: events.onEvent,
    });
    expect(summary.status).toBe('succeeded');
    expect(events.started()).toEqual(['b', 'c']);
    expect(events.of('run-start')[0]?.resumedFrom?.sort()).toEqual(['a', ...quick.map((t) => t.name)].sort());
    const ran = await lines(join(dir, 'log'));
    const count = (name: string) => ran.filter((l) => l === name).length;
    expect([count('a'), count('b'), count('c'), count('q0'), count('q7')]).toEqual([1, 2, 1, 1, 1]);
    expect(existsSync(join(clusterDir, 'lock'))).toBe(false);
  });
});

function killAndWait(proc: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    proc.once('exit', () => resolve());
    proc.kill('SIGKILL');
  });
}

function killGroup(pgid: number): void {
  try {
    process.kill(-pgid, 'SIGKILL');
  } catch {
    // already gone
  }
}
