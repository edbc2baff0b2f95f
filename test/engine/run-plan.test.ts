import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConnectionError, InternalError, UsageError } from '../../src/errors/index.js';
import type { TransportFactory } from '../../src/executor/transport-pool.js';
import { testTempDir } from '../helpers/temp.js';
import { lines, localHosts, localTransports, makePlan, runLocally, shell, task } from './helpers.js';

describe('runPlan scheduling', () => {
  it('never starts a task before everything it needs has finished', async () => {
    const dir = await testTempDir('engine');
    const stamp = (name: string) =>
      shell(name, `date +%s%N > ${dir}/${name}.start; sleep 0.2; date +%s%N > ${dir}/${name}.end`);
    const plan = makePlan([
      task('d', ['b', 'c'], ['localhost'], [stamp('d')]),
      task('b', ['a'], ['localhost'], [stamp('b')]),
      task('c', ['a'], ['localhost'], [stamp('c')]),
      task('a', [], ['localhost'], [stamp('a')]),
    ]);
    const { summary, events } = await runLocally(plan, join(dir, 'cluster'));
    expect(summary.status).toBe('succeeded');
    const time = async (file: string) => BigInt((await lines(join(dir, file)))[0] ?? 'x');
    expect(await time('b.start')).toBeGreaterThanOrEqual(await time('a.end'));
    expect(await time('c.start')).toBeGreaterThanOrEqual(await time('a.end'));
    expect(await time('d.start')).toBeGreaterThanOrEqual(await time('b.end'));
    expect(await time('d.start')).toBeGreaterThanOrEqual(await time('c.end'));
    const index = (type: string, name: string) =>
      events.events.findIndex((e) => e.type === type && 'task' in e && e.task === name);
    expect(index('task-start', 'd')).toBeGreaterThan(index('task-end', 'b'));
    expect(index('task-start', 'd')).toBeGreaterThan(index('task-end', 'c'));
    expect(events.started()[0]).toBe('a');
  });

  it('runs at most `forks` (task, host) units at once across tasks', async () => {
    const dir = await testTempDir('engine');
    const names = ['h1', 'h2', 'h3', 'h4', 'h5', 'h6'];
    // mkdir is atomic: each unit registers itself, counts the registered units, then leaves.
    const probe = (label: string) =>
      shell(
        'probe',
        `mkdir ${dir}/running.${label}.$$ && ls -d ${dir}/running.* | wc -l >> ${dir}/counts; sleep 0.4; rmdir ${dir}/running.${label}.$$`,
      );
    const plan = makePlan(
      [task('one', [], names, [probe('one')]), task('two', [], names, [probe('two')])],
      localHosts(...names),
    );
    const { summary, events } = await runLocally(plan, join(dir, 'cluster'), { forks: 3 });
    expect(summary.status).toBe('succeeded');
    const counts = (await lines(join(dir, 'counts'))).map(Number);
    expect(counts).toHaveLength(12);
    expect(Math.max(...counts)).toBe(3);
    // The same, seen from the events: units between step-start and step-end.
    let current = 0;
    let max = 0;
    for (const event of events.events) {
      if (event.type === 'step-start') max = Math.max(max, ++current);
      if (event.type === 'step-end') current -= 1;
    }
    expect(max).toBe(3);
  });

  it('runs the steps of a host in order and the hosts of a task in parallel', async () => {
    const dir = await testTempDir('engine');
    const plan = makePlan(
      [
        task(
          't',
          [],
          ['h1', 'h2'],
          [
            shell('first', `echo first >> ${dir}/$KM_HOST`),
            shell('second', `echo second >> ${dir}/$KM_HOST`),
          ],
        ),
      ],
      localHosts('h1', 'h2'),
    );
    // The host name reaches the command through the template context.
    for (const step of plan.tasks[0]!.steps)
      step.args['cmd'] = String(step.args['cmd']).replace('$KM_HOST', '{{ inventory_hostname }}');
    const { summary } = await runLocally(plan, join(dir, 'cluster'));
    expect(summary.status).toBe('succeeded');
    expect(await lines(join(dir, 'h1'))).toEqual(['first', 'second']);
    expect(await lines(join(dir, 'h2'))).toEqual(['first', 'second']);
  });

  it('runs runOnce steps on the first host only and shares what they register', async () => {
    const dir = await testTempDir('engine');
    const plan = makePlan(
      [
        task(
          't',
          [],
          ['h1', 'h2', 'h3'],
          [
            shell('make token', `echo ran >> ${dir}/once; echo tok-42`, { runOnce: true, register: 'token' }),
            shell('use token', `echo {{ outputs.token }} > ${dir}/{{ inventory_hostname }}`),
          ],
        ),
      ],
      localHosts('h1', 'h2', 'h3'),
    );
    const { summary } = await runLocally(plan, join(dir, 'cluster'), { forks: 1 });
    expect(summary.status).toBe('succeeded');
    expect(await lines(join(dir, 'once'))).toEqual(['ran']);
    for (const host of ['h1', 'h2', 'h3']) expect(await lines(join(dir, host))).toEqual(['tok-42']);
  });
});

describe('runPlan failures', () => {
  it('fails a task that is not implemented yet, and skips what depends on it', async () => {
    const dir = await testTempDir('engine');
    const plan = makePlan([
      task('init-control-plane', [], ['localhost'], [], { implemented: false }),
      task('install-flannel', ['init-control-plane'], ['localhost'], [shell('x', 'true')]),
    ]);
    const { summary, events } = await runLocally(plan, dir);
    expect(summary.status).toBe('failed');
    expect(summary.failedTask).toBe('init-control-plane');
    expect(summary.error).toBe('not implemented yet: init-control-plane');
    expect(events.of('task-end')).toMatchObject([
      { task: 'init-control-plane', status: 'failed', error: 'not implemented yet: init-control-plane' },
    ]);
    expect(events.of('task-skip')).toMatchObject([{ task: 'install-flannel', reason: 'dependency-failed' }]);
    expect(summary.tasks['install-flannel']).toEqual({ status: 'skipped', reason: 'dependency-failed' });
    expect(events.of('run-end')[0]).toMatchObject({ status: 'failed', failedTask: 'init-control-plane' });
  });

  it('says which host, task and step failed, what ran, the exit code and the end of stderr', async () => {
    const dir = await testTempDir('engine');
    const plan = makePlan(
      [
        task(
          'prepare-linux',
          [],
          ['node-1'],
          [shell('install packages', 'echo early >&2; echo "E: no such package" >&2; exit 100')],
        ),
      ],
      localHosts('node-1'),
    );
    const { summary } = await runLocally(plan, dir);
    expect(summary.status).toBe('failed');
    expect(summary.error).toContain('task prepare-linux failed on host node-1');
    expect(summary.error).toContain('step "install packages"');
    expect(summary.error).toContain('exit 100');
    expect(summary.error).toContain('exit code 100');
    expect(summary.error).toContain('E: no such package');
    expect(summary.failures).toEqual([
      {
        task: 'prepare-linux',
        host: 'node-1',
        step: 'install packages',
        command: 'echo early >&2; echo "E: no such package" >&2; exit 100',
        exitCode: 100,
        stderrTail: 'early\nE: no such package',
      },
    ]);
  });

  it('starts nothing new after a failure but lets a running independent branch finish', async () => {
    const dir = await testTempDir('engine');
    const plan = makePlan([
      task('bad', [], ['localhost'], [shell('fail', 'sleep 0.1; exit 1')]),
      task('slow', [], ['localhost'], [shell('slow', `sleep 0.6; touch ${dir}/slow.done`)]),
      task('after-slow', ['slow'], ['localhost'], [shell('x', `touch ${dir}/after-slow`)]),
      task('after-bad', ['bad'], ['localhost'], [shell('x', `touch ${dir}/after-bad`)]),
    ]);
    const { summary } = await runLocally(plan, join(dir, 'c'));
    expect(summary.status).toBe('failed');
    expect(summary.tasks['slow']?.status).toBe('done');
    expect(existsSync(join(dir, 'slow.done'))).toBe(true);
    expect(summary.tasks['after-slow']).toEqual({ status: 'pending' });
    expect(summary.tasks['after-bad']).toEqual({ status: 'skipped', reason: 'dependency-failed' });
    expect(existsSync(join(dir, 'after-slow'))).toBe(false);
    expect(existsSync(join(dir, 'after-bad'))).toBe(false);
  });

  it('continues past a failed step with ignoreErrors', async () => {
    const dir = await testTempDir('engine');
    const plan = makePlan([
      task(
        't',
        [],
        ['localhost'],
        [shell('may fail', 'exit 3', { ignoreErrors: true }), shell('next', `touch ${dir}/next`)],
      ),
    ]);
    const { summary, events } = await runLocally(plan, join(dir, 'c'));
    expect(summary.status).toBe('succeeded');
    expect(existsSync(join(dir, 'next'))).toBe(true);
    expect(events.of('step-end').map((e) => e.status)).toEqual(['failed', 'changed']);
    expect(summary.failures).toEqual([]);
  });

  it('fails a step whose module does not exist, naming the module', async () => {
    const dir = await testTempDir('engine');
    const plan = makePlan([
      task('t', [], ['localhost'], [{ name: 'odd', module: 'no_such_module', args: {}, retries: 3 }]),
    ]);
    const { summary, events } = await runLocally(plan, dir);
    expect(summary.status).toBe('failed');
    expect(summary.error).toContain('unknown module "no_such_module"');
    // A step that cannot run at all is not retried.
    expect(events.of('step-retry')).toHaveLength(0);
  });

  it('reports a host that cannot be connected as unreachable, naming it', async () => {
    const dir = await testTempDir('engine');
    // A factory whose connection to one host is refused, as an SSH factory would be.
    const transports: TransportFactory = (host) => {
      if (host.name === 'offline') throw new ConnectionError(host.name, 'connect ECONNREFUSED 127.0.0.1:22');
      return localTransports(host);
    };
    const plan = makePlan(
      [task('t', [], ['online', 'offline'], [shell('x', `touch ${dir}/ran-{{ inventory_hostname }}`)])],
      localHosts('online', 'offline'),
    );
    const { summary, events } = await runLocally(plan, join(dir, 'c'), { transports });
    expect(summary.status).toBe('failed');
    expect(events.of('host-unreachable')).toMatchObject([{ task: 't', host: 'offline' }]);
    expect(summary.error).toContain('host offline');
    expect(summary.error).toContain('unreachable');
    expect(summary.failures).toMatchObject([{ host: 'offline', step: '(connect)', exitCode: null }]);
    expect(existsSync(join(dir, 'ran-online'))).toBe(true);
  });
});

describe('runPlan input checks', () => {
  const plan = makePlan([
    task('a', [], ['localhost'], [shell('x', 'true')]),
    task('b', ['a'], ['localhost'], [shell('x', 'true')]),
  ]);

  it.each([
    ['stopAfter', 'stop-after'],
    ['stopBefore', 'stop-before'],
    ['from', 'from'],
  ] as const)(
    'rejects an unknown %s task name, listing the valid ones, before anything runs',
    async (option, flag) => {
      const dir = await testTempDir('engine');
      const run = runLocally(plan, join(dir, 'c'), { [option]: 'nope' });
      await expect(run).rejects.toThrow(UsageError);
      await expect(run).rejects.toThrow(`unknown task "nope" for --${flag}; valid tasks: a, b`);
      expect(existsSync(join(dir, 'c'))).toBe(false);
    },
  );

  it('rejects a cycle and an unknown need as planner bugs', async () => {
    const dir = await testTempDir('engine');
    const cyclic = makePlan([task('a', ['c'], [], []), task('b', ['a'], [], []), task('c', ['b'], [], [])]);
    await expect(runLocally(cyclic, dir)).rejects.toThrow(InternalError);
    await expect(runLocally(cyclic, dir)).rejects.toThrow(/dependency cycle: a needs c needs b needs a/);
    const dangling = makePlan([task('a', ['ghost'], [], [])]);
    await expect(runLocally(dangling, dir)).rejects.toThrow('task "a" needs unknown task "ghost"');
    const noHost = makePlan([task('a', [], ['ghost'], [])]);
    await expect(runLocally(noHost, dir)).rejects.toThrow('task "a" targets unknown host "ghost"');
  });

  it('rejects a forks value that is not a positive integer', async () => {
    const dir = await testTempDir('engine');
    await expect(runLocally(plan, dir, { forks: 0 })).rejects.toThrow(UsageError);
  });

  it('treats a task without hosts as done and moves on', async () => {
    const dir = await testTempDir('engine');
    const { summary, events } = await runLocally(
      makePlan([task('empty', [], [], []), task('next', ['empty'], ['localhost'], [shell('x', 'true')])]),
      dir,
    );
    expect(summary.status).toBe('succeeded');
    expect(events.of('task-skip')).toMatchObject([{ task: 'empty', reason: 'no-hosts' }]);
    expect(events.started()).toEqual(['next']);
  });
});

describe('runPlan event listeners', () => {
  it('finishes the run, saves state and releases the lock before reporting a listener that throws', async () => {
    const dir = await testTempDir('engine');
    const plan = makePlan([task('a', [], ['localhost'], [shell('x', `touch ${dir}/ran`)])]);
    const onEvent = () => {
      throw new Error('renderer broke');
    };
    await expect(runLocally(plan, join(dir, 'c'), { onEvent })).rejects.toThrow('renderer broke');
    expect(existsSync(join(dir, 'ran'))).toBe(true);
    expect(existsSync(join(dir, 'c', 'lock'))).toBe(false);
    expect(existsSync(join(dir, 'c', 'state.json'))).toBe(true);
  });
});
