import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readState } from '../../src/engine/index.js';
import type { Plan } from '../../src/types/plan.js';
import { testTempDir } from '../helpers/temp.js';
import { lines, makePlan, runLocally, shell, task } from './helpers.js';

/** a -> b -> c, and x independent; every task appends its name to a log when it runs. */
function chain(dir: string, marker = ''): Plan {
  const log = (name: string) => shell(`log ${name}`, `echo ${name}${marker} >> ${dir}/log`);
  return makePlan([
    task('a', [], ['localhost'], [log('a')]),
    task('b', ['a'], ['localhost'], [log('b')]),
    task('c', ['b'], ['localhost'], [log('c')]),
    task('x', [], ['localhost'], [log('x')]),
  ]);
}

describe('stop and resume', () => {
  it('stopAfter runs the task and its ancestors only; a re-run resumes after it', async () => {
    const dir = await testTempDir('engine');
    const clusterDir = join(dir, 'cluster');
    const plan = chain(dir);
    const { summary: stopped, events: first } = await runLocally(plan, clusterDir, { stopAfter: 'b' });
    expect(stopped.status).toBe('stopped');
    expect((await lines(join(dir, 'log'))).sort()).toEqual(['a', 'b']);
    expect(first.of('task-skip').map((e) => [e.task, e.reason])).toEqual([
      ['c', 'stop-after'],
      ['x', 'stop-after'],
    ]);
    const state = await readState(clusterDir);
    expect(state?.tasks['a']?.status).toBe('done');
    expect(state?.tasks['b']?.status).toBe('done');
    expect(state?.tasks['c']).toBeUndefined();
    expect(state?.lastRun?.status).toBe('stopped');

    const { summary: resumed, events: second } = await runLocally(plan, clusterDir);
    expect(resumed.status).toBe('succeeded');
    expect(second.started().sort()).toEqual(['c', 'x']);
    expect(second.of('task-skip').map((e) => [e.task, e.reason])).toEqual([
      ['a', 'already-done'],
      ['b', 'already-done'],
    ]);
    expect(second.of('run-start')[0]?.resumedFrom).toEqual(['a', 'b']);
    expect((await lines(join(dir, 'log'))).sort()).toEqual(['a', 'b', 'c', 'x']);
  });

  it('stopBefore stops before the task starts', async () => {
    const dir = await testTempDir('engine');
    const { summary, events } = await runLocally(chain(dir), join(dir, 'c'), { stopBefore: 'c' });
    expect(summary.status).toBe('stopped');
    expect(events.started().sort()).toEqual(['a', 'b']);
    expect(summary.tasks['c']).toEqual({ status: 'skipped', reason: 'stop-before' });
  });

  it('resumes after a failure: done tasks are skipped, the failed one runs again', async () => {
    const dir = await testTempDir('engine');
    const clusterDir = join(dir, 'cluster');
    const plan = makePlan([
      task('a', [], ['localhost'], [shell('a', `echo a >> ${dir}/log`)]),
      task('b', ['a'], ['localhost'], [shell('b', `echo b >> ${dir}/log; [ -f ${dir}/fixed ]`)]),
    ]);
    const { summary: failed } = await runLocally(plan, clusterDir);
    expect(failed.status).toBe('failed');
    expect((await readState(clusterDir))?.tasks['b']?.status).toBe('failed');
    await import('node:fs/promises').then((fs) => fs.writeFile(join(dir, 'fixed'), ''));
    const { summary: fixed, events } = await runLocally(plan, clusterDir);
    expect(fixed.status).toBe('succeeded');
    expect(events.started()).toEqual(['b']);
    expect(await lines(join(dir, 'log'))).toEqual(['a', 'b', 'b']);
  });

  it('from redoes the task and everything that depends on it', async () => {
    const dir = await testTempDir('engine');
    const clusterDir = join(dir, 'cluster');
    await runLocally(chain(dir), clusterDir);
    const { summary, events } = await runLocally(chain(dir), clusterDir, { from: 'b' });
    expect(summary.status).toBe('succeeded');
    expect(events.started()).toEqual(['b', 'c']);
    expect(
      events
        .of('task-skip')
        .map((e) => e.task)
        .sort(),
    ).toEqual(['a', 'x']);
  });

  it('from with stopAfter redoes only up to the stop', async () => {
    const dir = await testTempDir('engine');
    const clusterDir = join(dir, 'cluster');
    await runLocally(chain(dir), clusterDir);
    const { summary, events } = await runLocally(chain(dir), clusterDir, { from: 'a', stopAfter: 'b' });
    expect(summary.status).toBe('stopped');
    expect(events.started()).toEqual(['a', 'b']);
    // c was redone-marked by --from but not run: it is no longer done.
    expect((await readState(clusterDir))?.tasks['c']?.status).toBe('pending');
  });

  it('notices a changed task and runs it and its dependents again', async () => {
    const dir = await testTempDir('engine');
    const clusterDir = join(dir, 'cluster');
    const original = chain(dir);
    await runLocally(original, clusterDir);
    const before = await readState(clusterDir);
    const changed = chain(dir);
    changed.tasks[1]!.steps[0]!.args['cmd'] = `echo b2 >> ${dir}/log`;
    const { summary, events } = await runLocally(changed, clusterDir);
    expect(summary.changedTasks).toEqual(['b']);
    expect(events.started()).toEqual(['b', 'c']);
    expect((await readState(clusterDir))?.planHash).not.toBe(before?.planHash);
  });
});
