import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runClusterPlan } from '../../src/cluster/run-plan.js';
import {
  forgetBuild,
  forgetRun,
  readState,
  recordsLiveBuild,
  STATE_VERSION,
} from '../../src/engine/index.js';
import { KubemixError } from '../../src/errors/index.js';
import { testTempDir } from '../helpers/temp.js';
import { localHosts, localTransports, makePlan, readJson, shell, task } from './helpers.js';

describe('state file', () => {
  it('is undefined before the first run', async () => {
    expect(await readState(await testTempDir('engine'))).toBeUndefined();
  });

  it('records tasks, plan hash, inventory, outputs and the last run', async () => {
    const dir = await testTempDir('engine');
    const plan = makePlan(
      [
        task('a', [], ['node-1'], [shell('version', 'echo "  v1.31.2  "', { register: 'version' })]),
        task('b', ['a'], ['localhost'], [shell('x', 'exit 1')]),
      ],
      localHosts('node-1'),
    );
    await runClusterPlan({
      plan,
      clusterDir: dir,
      transports: localTransports,
      now: () => new Date('2026-01-02T03:04:05Z'),
    });
    const state = await readJson(join(dir, 'state.json'));
    expect(state).toMatchObject({
      version: STATE_VERSION,
      cluster: 'lab',
      tasks: {
        a: { status: 'done', startedAt: '2026-01-02T03:04:05.000Z', finishedAt: '2026-01-02T03:04:05.000Z' },
        b: { status: 'failed' },
      },
      inventory: [{ name: 'node-1', connection: 'local' }],
      outputs: { 'node-1': { version: 'v1.31.2' } },
      lastRun: { status: 'failed', failedTask: 'b' },
    });
    expect(state.planHash).toMatch(/^[0-9a-f]{64}$/);
    expect(state.lastRun.message).toContain('task b failed on host localhost');
    // Written atomically: no temp files are left next to it.
    expect((await readdir(dir)).sort()).toEqual(['state.json']);
  });

  it('refuses a corrupt state file, naming it, and leaves it untouched', async () => {
    const dir = await testTempDir('engine');
    await writeFile(join(dir, 'state.json'), '{"version": 1, "tasks": {');
    await expect(readState(dir)).rejects.toThrow(KubemixError);
    await expect(readState(dir)).rejects.toThrow(`state file ${join(dir, 'state.json')} is corrupt`);
    const plan = makePlan([task('a', [], ['localhost'], [shell('x', 'true')])]);
    await expect(runClusterPlan({ plan, clusterDir: dir, transports: localTransports })).rejects.toThrow(
      /is corrupt/,
    );
    expect(await readFile(join(dir, 'state.json'), 'utf8')).toBe('{"version": 1, "tasks": {');
    // The lock was released on the way out.
    expect((await readdir(dir)).sort()).toEqual(['state.json']);
  });

  it('refuses JSON that is not a state file, naming the bad field', async () => {
    const dir = await testTempDir('engine');
    await writeFile(
      join(dir, 'state.json'),
      JSON.stringify({
        version: 1,
        cluster: 'lab',
        planHash: 'x',
        tasks: { a: { status: 'weird' } },
        inventory: [],
        outputs: {},
      }),
    );
    await expect(readState(dir)).rejects.toThrow(/is not a kubemix state file \(tasks\.a\.status: /);
  });

  it('refuses a state file of another version', async () => {
    const dir = await testTempDir('engine');
    await writeFile(
      join(dir, 'state.json'),
      JSON.stringify({ version: 99, cluster: 'lab', planHash: 'x', tasks: {}, inventory: [], outputs: {} }),
    );
    await expect(readState(dir)).rejects.toThrow('has version 99');
  });

  it('refuses a cluster directory that belongs to another cluster', async () => {
    const dir = await testTempDir('engine');
    const plan = makePlan([task('a', [], ['localhost'], [shell('x', 'true')])]);
    await runClusterPlan({ plan, clusterDir: dir, transports: localTransports });
    await expect(
      runClusterPlan({ plan: { ...plan, cluster: 'other' }, clusterDir: dir, transports: localTransports }),
    ).rejects.toThrow('belongs to cluster "lab", not "other"');
  });
});

describe('forgetRun', () => {
  it('removes state.json and secrets.json so the next run starts over, and keeps the run logs', async () => {
    const dir = await testTempDir('engine');
    const plan = makePlan([task('a', [], ['node-1'], [shell('x', 'true')])], localHosts('node-1'));
    await runClusterPlan({ plan, clusterDir: dir, transports: localTransports });
    await writeFile(join(dir, 'secrets.json'), '{}', { mode: 0o600 });
    await mkdir(join(dir, 'runs'));
    await writeFile(join(dir, 'runs', 'r.jsonl'), '{}\n');
    expect((await readState(dir))?.tasks['a']?.status).toBe('done');
    await forgetRun(dir);
    expect(await readState(dir)).toBeUndefined();
    expect((await readdir(dir)).sort()).toEqual(['runs']);
    await forgetRun(dir);
    const again = await runClusterPlan({ plan, clusterDir: dir, transports: localTransports });
    expect(again.status).toBe('succeeded');
    expect((await readState(dir))?.tasks['a']?.status).toBe('done');
  });
});

describe('forgetBuild', () => {
  it('turns a finished build into history: tasks and secrets forgotten, the teardown recorded, the next run builds again', async () => {
    const dir = await testTempDir('engine');
    const plan = makePlan([task('a', [], ['node-1'], [shell('x', 'true')])], localHosts('node-1'));
    await runClusterPlan({ plan, clusterDir: dir, transports: localTransports });
    await writeFile(join(dir, 'secrets.json'), '{}', { mode: 0o600 });
    expect(recordsLiveBuild(await readState(dir))).toBe(true);
    const tornDown = { at: '2026-11-28T12:00:00.000Z', eventLog: join(dir, 'teardown', 'runs', 'r.jsonl') };
    await forgetBuild(dir, tornDown);
    const state = await readState(dir);
    expect([state?.tasks, state?.tornDown, state?.lastRun?.status]).toEqual([{}, tornDown, 'succeeded']);
    expect(recordsLiveBuild(state)).toBe(false);
    expect((await readdir(dir)).filter((f) => f.startsWith('secrets'))).toEqual([]);
    // The next run's state starts without the teardown record: the cluster exists again.
    await runClusterPlan({ plan, clusterDir: dir, transports: localTransports });
    const rebuilt = await readState(dir);
    expect([rebuilt?.tasks['a']?.status, rebuilt?.tornDown]).toEqual(['done', undefined]);
    expect(recordsLiveBuild(rebuilt)).toBe(true);
  });
});
