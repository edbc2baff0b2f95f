import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runClusterPlan } from '../../src/cluster/run-plan.js';
import { acquireLock } from '../../src/engine/index.js';
import { isProcessAlive } from '../../src/engine/lock.js';
import { ClusterLockedError } from '../../src/errors/index.js';
import { testTempDir } from '../helpers/temp.js';
import { localTransports, makePlan, shell, task, waitFor } from './helpers.js';

/** The pid of a process that has exited (so nobody holds it right now). */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], {
    encoding: 'utf8',
  });
  return Number(child.stdout);
}

describe('cluster lock', () => {
  it('holds our pid and is refused to a second holder until released', async () => {
    const dir = await testTempDir('engine');
    const lock = await acquireLock(dir);
    expect((await readFile(join(dir, 'lock'), 'utf8')).trim()).toBe(String(process.pid));
    await expect(acquireLock(dir)).rejects.toThrow(ClusterLockedError);
    await expect(acquireLock(dir)).rejects.toThrow(`(pid ${process.pid})`);
    await lock.release();
    expect(existsSync(join(dir, 'lock'))).toBe(false);
    await (await acquireLock(dir)).release();
  });

  it('takes over a stale lock left by a dead process', async () => {
    const dir = await testTempDir('engine');
    await writeFile(join(dir, 'lock'), `${deadPid()}\n`);
    const lock = await acquireLock(dir);
    expect((await readFile(join(dir, 'lock'), 'utf8')).trim()).toBe(String(process.pid));
    await lock.release();
  });

  it('refuses a second run on the same cluster while the first runs, then the first finishes', async () => {
    const dir = await testTempDir('engine');
    const clusterDir = join(dir, 'cluster');
    const plan = makePlan([
      task(
        'slow',
        [],
        ['localhost'],
        [shell('wait', `touch ${dir}/started; while [ ! -f ${dir}/go ]; do sleep 0.05; done`)],
      ),
    ]);
    const first = runClusterPlan({ plan, clusterDir, transports: localTransports });
    await waitFor(() => existsSync(join(dir, 'started')), 10_000, 'the first run to start');
    await expect(runClusterPlan({ plan, clusterDir, transports: localTransports })).rejects.toThrow(
      ClusterLockedError,
    );
    await writeFile(join(dir, 'go'), '');
    expect((await first).status).toBe('succeeded');
    expect(existsSync(join(clusterDir, 'lock'))).toBe(false);
  });

  it('is released after a failed run', async () => {
    const dir = await testTempDir('engine');
    const plan = makePlan([task('bad', [], ['localhost'], [shell('x', 'exit 1')])]);
    expect((await runClusterPlan({ plan, clusterDir: dir, transports: localTransports })).status).toBe(
      'failed',
    );
    expect(existsSync(join(dir, 'lock'))).toBe(false);
  });
});

describe('isProcessAlive', () => {
  it('sees a running process as alive and a killed one as gone', async () => {
    const { spawn } = await import('node:child_process');
    const child = spawn('sleep', ['30']);
    const pid = child.pid as number;
    expect(isProcessAlive(pid)).toBe(true);
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
    expect(isProcessAlive(pid)).toBe(false);
  });
});
