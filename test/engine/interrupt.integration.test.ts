import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runClusterPlan } from '../../src/cluster/run-plan.js';
import { readState } from '../../src/engine/index.js';
import { testTempDir } from '../helpers/temp.js';
import { isRunning, lines, localTransports, makePlan, recorder, shell, task, waitFor } from './helpers.js';

describe('Ctrl-C (abort signal)', () => {
  it('kills running commands, records completed tasks only, ends interrupted and releases the lock', async () => {
    const dir = await testTempDir('engine');
    const clusterDir = join(dir, 'cluster');
    const plan = makePlan([
      task('a', [], ['localhost'], [shell('a', `echo a >> ${dir}/log`)]),
      // Hangs until the `fast` marker exists (the resumed run creates it first).
      task(
        'b',
        ['a'],
        ['localhost'],
        [
          shell(
            'b',
            `echo b >> ${dir}/log; [ -f ${dir}/fast ] || exec sleep 30 & echo $! > ${dir}/pid; wait`,
          ),
        ],
      ),
      task('c', ['b'], ['localhost'], [shell('c', `echo c >> ${dir}/log`)]),
    ]);
    const controller = new AbortController();
    const events = recorder();
    const run = runClusterPlan({
      plan,
      clusterDir,
      transports: localTransports,
      signal: controller.signal,
      onEvent: events.onEvent,
    });
    await waitFor(() => existsSync(join(dir, 'pid')), 10_000, 'task b to start its command');
    const sleeper = Number(await readFile(join(dir, 'pid'), 'utf8'));
    controller.abort();
    const summary = await run;

    expect(summary.status).toBe('interrupted');
    expect(summary.tasks['a']?.status).toBe('done');
    expect(summary.tasks['b']).toMatchObject({ status: 'pending', reason: 'interrupted' });
    expect(summary.tasks['c']?.status).toBe('pending');
    expect(events.of('run-end')[0]?.status).toBe('interrupted');
    expect(events.started()).toEqual(['a', 'b']);
    expect(isRunning(sleeper)).toBe(false);
    expect(existsSync(join(clusterDir, 'lock'))).toBe(false);
    const state = await readState(clusterDir);
    expect(state?.tasks['a']?.status).toBe('done');
    expect(state?.tasks['b']).toBeUndefined();
    expect(state?.lastRun?.status).toBe('interrupted');

    await writeFile(join(dir, 'fast'), '');
    const resumed = recorder();
    const again = await runClusterPlan({
      plan,
      clusterDir,
      transports: localTransports,
      onEvent: resumed.onEvent,
    });
    expect(again.status).toBe('succeeded');
    expect(resumed.started()).toEqual(['b', 'c']);
    expect(await lines(join(dir, 'log'))).toEqual(['a', 'b', 'b', 'c']);
  });

  it('does not retry an attempt that was interrupted', async () => {
    const dir = await testTempDir('engine');
    const plan = makePlan([
      task(
        't',
        [],
        ['localhost'],
        [shell('hang', `touch ${dir}/started; sleep 30`, { retries: 5, delayMs: 10 })],
      ),
    ]);
    const controller = new AbortController();
    const events = recorder();
    const run = runClusterPlan({
      plan,
      clusterDir: dir,
      transports: localTransports,
      signal: controller.signal,
      onEvent: events.onEvent,
    });
    await waitFor(() => existsSync(join(dir, 'started')), 10_000, 'the step to start');
    controller.abort();
    expect((await run).status).toBe('interrupted');
    expect(events.of('step-retry')).toEqual([]);
  });

  it('starts nothing when the signal is already aborted', async () => {
    const dir = await testTempDir('engine');
    const plan = makePlan([task('t', [], ['localhost'], [shell('x', `touch ${dir}/ran`)])]);
    const summary = await runClusterPlan({
      plan,
      clusterDir: join(dir, 'c'),
      transports: localTransports,
      signal: AbortSignal.abort(),
    });
    expect(summary.status).toBe('interrupted');
    expect(existsSync(join(dir, 'ran'))).toBe(false);
    expect(existsSync(join(dir, 'c', 'lock'))).toBe(false);
  });
});
