import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readState, type StepExecutor } from '../../src/engine/index.js';
import { ConnectionError } from '../../src/errors/index.js';
import { MAX_GROWING_DELAY_MS, retryDelayMs } from '../../src/playbook/execute-task.js';
import { createPlaybookStepExecutor } from '../../src/playbook/step-executor.js';
import { LocalTransport } from '../../src/transport/local/index.js';
import { testTempDir } from '../helpers/temp.js';
import { lines, makePlan, runLocally, shell, task } from './helpers.js';

/** A command that fails until it has run `okAt` times, counting runs in a file. */
const flaky = (counter: string, okAt: number) =>
  `n=$(cat ${counter} 2>/dev/null || echo 0); n=$((n+1)); echo $n > ${counter}; echo "attempt $n" >&2; [ $n -ge ${okAt} ]`;

describe('step retries', () => {
  it('retries a failing step with doubling delays until it succeeds', async () => {
    const dir = await testTempDir('engine');
    const plan = makePlan([
      task('t', [], ['localhost'], [shell('flaky', flaky(join(dir, 'n'), 3), { retries: 4, delayMs: 20 })]),
    ]);
    const { summary, events } = await runLocally(plan, join(dir, 'c'));
    expect(summary.status).toBe('succeeded');
    expect(await lines(join(dir, 'n'))).toEqual(['3']);
    // One step-start per step: its attempts are the playbook loop's, reported as step-retry.
    expect(events.of('step-start').map((e) => e.attempt)).toEqual([1]);
    const retries = events.of('step-retry');
    expect(retries.map((e) => [e.attempt, e.delayMs])).toEqual([
      [1, 20],
      [2, 40],
    ]);
    expect(retries[0]?.result).toMatchObject({ exitCode: 1, failed: true, stderr: 'attempt 1\n' });
    expect(events.of('step-end')).toMatchObject([{ status: 'changed', result: { exitCode: 0 } }]);
  });

  it('fails once the retries are used up, reporting the last attempt', async () => {
    const dir = await testTempDir('engine');
    const plan = makePlan([
      task('t', [], ['localhost'], [shell('flaky', flaky(join(dir, 'n'), 10), { retries: 2, delayMs: 5 })]),
    ]);
    const { summary, events } = await runLocally(plan, join(dir, 'c'));
    expect(summary.status).toBe('failed');
    expect(await lines(join(dir, 'n'))).toEqual(['3']);
    expect(events.of('step-retry')).toHaveLength(2);
    expect(summary.failures[0]?.stderrTail).toBe('attempt 3');
  });

  it('doubles the delay from the base and caps it', () => {
    expect([1, 2, 3, 4].map((n) => retryDelayMs(1000, 2, n))).toEqual([1000, 2000, 4000, 8000]);
    expect(retryDelayMs(1000, 2, 30)).toBe(MAX_GROWING_DELAY_MS);
    // A base longer than the cap is kept, not shortened.
    expect(retryDelayMs(90_000, 2, 3)).toBe(90_000);
  });

  it('runs a code-built step through the executor once, its attempts in the one loop', async () => {
    const dir = await testTempDir('engine');
    const users = createPlaybookStepExecutor();
    let calls = 0;
    const counted: StepExecutor = (request) => {
      calls += 1;
      return users(request);
    };
    const plan = makePlan([
      task('t', [], ['localhost'], [shell('flaky', flaky(join(dir, 'n'), 4), { retries: 5, delayMs: 3 })]),
    ]);
    const { summary, events } = await runLocally(plan, join(dir, 'c'), { executeStep: counted });
    expect(summary.status).toBe('succeeded');
    expect(await lines(join(dir, 'n'))).toEqual(['4']);
    expect(calls).toBe(1);
    expect(events.of('step-start')).toHaveLength(1);
    // Each failed attempt once, the delay doubling from the step's base.
    expect(events.of('step-retry').map((e) => [e.attempt, e.delayMs])).toEqual([
      [1, 3],
      [2, 6],
      [3, 12],
    ]);
  });

  it('reports the retries of a playbook until-loop as step-retry events', async () => {
    const dir = await testTempDir('engine');
    const counter = join(dir, 'n');
    const plan = makePlan([
      task(
        't',
        [],
        ['localhost'],
        [
          {
            name: 'until three',
            module: 'shell',
            args: {
              cmd: `n=$(cat ${counter} 2>/dev/null || echo 0); n=$((n+1)); echo $n > ${counter}; echo $n`,
            },
            register: 'count',
            keywords: { until: 'count.stdout | int >= 3', retries: 4, delay: 0.004 },
          },
        ],
      ),
    ]);
    const { summary, events } = await runLocally(plan, join(dir, 'c'));
    expect(summary.status).toBe('succeeded');
    // Ansible's delay does not grow.
    expect(events.of('step-retry').map((e) => [e.attempt, e.delayMs, e.result.stdout])).toEqual([
      [1, 4, '1\n'],
      [2, 4, '2\n'],
    ]);
    expect(events.of('step-start')).toHaveLength(1);
  });

  it('retries a code-built step whose host could not be reached, as a wait for a restart needs', async () => {
    const dir = await testTempDir('engine');
    let refused = 0;
    // The first command finds the host unreachable (sshd restarting), the next ones run.
    const restarting = (host: { name: string }) => {
      const local = new LocalTransport(host.name);
      const run = local.exec.bind(local);
      local.exec = async (request) => {
        if (refused === 0) {
          refused += 1;
          throw new ConnectionError(host.name, 'connect ECONNREFUSED 127.0.0.1:22');
        }
        return run(request);
      };
      return local;
    };
    const plan = makePlan([
      task(
        't',
        [],
        ['localhost'],
        [shell('after restart', 'echo up', { retries: 2, delayMs: 1, register: 'up' })],
      ),
    ]);
    const { summary, events } = await runLocally(plan, join(dir, 'c'), { transports: restarting });
    expect(summary.status).toBe('succeeded');
    expect(events.of('step-retry').map((e) => e.attempt)).toEqual([1]);
    expect((await readState(join(dir, 'c')))?.outputs['localhost']?.['up']).toBe('up');
  });
});

describe('step timeouts', () => {
  it('kills an attempt that outlives timeoutMs and reports it as timed out', async () => {
    const dir = await testTempDir('engine');
    const plan = makePlan([task('t', [], ['localhost'], [shell('hang', 'sleep 30', { timeoutMs: 300 })])]);
    const { summary, events } = await runLocally(plan, join(dir, 'c'));
    expect(summary.status).toBe('failed');
    expect(events.of('step-end')[0]?.result).toMatchObject({
      timedOut: true,
      failed: true,
      command: 'sleep 30',
    });
    expect(summary.error).toContain('timed out');
    expect(summary.error).toContain('sleep 30');
  });

  it('gives every attempt its own time limit', async () => {
    const dir = await testTempDir('engine');
    const counter = join(dir, 'n');
    // Two attempts of 1.2 s each under a 2 s limit: more than the limit together, within it each.
    const cmd = `n=$(cat ${counter} 2>/dev/null || echo 0); n=$((n+1)); echo $n > ${counter}; sleep 1.2; [ $n -ge 2 ]`;
    const plan = makePlan([
      task('t', [], ['localhost'], [shell('slow twice', cmd, { timeoutMs: 2000, retries: 1, delayMs: 1 })]),
    ]);
    const { summary, events } = await runLocally(plan, join(dir, 'c'));
    expect(summary.status).toBe('succeeded');
    expect(events.of('step-retry').map((e) => e.result.timedOut)).toEqual([false]);
  });

  it('ends the step at an attempt that timed out, without the remaining attempts (as Ansible)', async () => {
    const dir = await testTempDir('engine');
    const counter = join(dir, 'n');
    const cmd = `n=$(cat ${counter} 2>/dev/null || echo 0); n=$((n+1)); echo $n > ${counter}; sleep 30`;
    const plan = makePlan([
      task('t', [], ['localhost'], [shell('hang', cmd, { timeoutMs: 300, retries: 3, delayMs: 1 })]),
    ]);
    const { summary, events } = await runLocally(plan, join(dir, 'c'));
    expect(summary.status).toBe('failed');
    expect(await lines(counter)).toEqual(['1']);
    expect(events.of('step-retry')).toEqual([]);
    expect(events.of('step-end')[0]?.result).toMatchObject({ timedOut: true, failed: true });
    expect(summary.error).toContain('timed out after 300 ms');
  });

  it('also stops a module that ignores timeoutMs, through the attempt signal', async () => {
    const dir = await testTempDir('engine');
    // wait_for's own timeout (30 s) wins over the step's default for its commands; only the
    // attempt's signal can stop its waiting.
    const plan = makePlan([
      task(
        't',
        [],
        ['localhost'],
        [
          {
            name: 'wait',
            module: 'wait_for',
            args: { path: join(dir, 'never'), timeout: 30, sleep: 1 },
            timeoutMs: 300,
          },
        ],
      ),
    ]);
    const { summary } = await runLocally(plan, dir);
    expect(summary.status).toBe('failed');
    expect(summary.error).toContain('timed out');
  });
});

describe('step execution hooks', () => {
  it('routes the step through the executor as written; the executor renders it', async () => {
    const dir = await testTempDir('engine');
    const seen: string[] = [];
    const users = createPlaybookStepExecutor();
    const executor: StepExecutor = (request) => {
      seen.push(
        `${request.task.name}/${request.host.name}/${request.step.name}:${String(request.step.args['cmd'])}`,
      );
      return users(request);
    };
    const plan = makePlan(
      [task('t', [], ['localhost'], [shell('greet', 'echo {{ greeting }}', { register: 'said' })])],
      [],
      { greeting: 'hello' },
    );
    const { summary } = await runLocally(plan, join(dir, 'c'), { executeStep: executor });
    expect(summary.status).toBe('succeeded');
    expect(seen).toEqual(['t/localhost/greet:echo {{ greeting }}']);
    expect((await readState(join(dir, 'c')))?.outputs['localhost']?.['said']).toBe('hello');
  });

  it('fails a step whose template refers to something undefined, naming it', async () => {
    const dir = await testTempDir('engine');
    const plan = makePlan([task('t', [], ['localhost'], [shell('x', 'echo {{ outputs.missing }}')])]);
    const { summary } = await runLocally(plan, dir);
    expect(summary.status).toBe('failed');
    // Ansible's wording (the playbook executor renders templates), naming the missing path.
    expect(summary.error).toContain(
      "The task includes an option with an undefined variable or a bad template. The error was: 'outputs.missing' is undefined",
    );
  });

  it('streams output as step-output events, line by line', async () => {
    const dir = await testTempDir('engine');
    const plan = makePlan([
      task('t', [], ['localhost'], [shell('talk', 'printf "a"; sleep 0.1; printf "b\\nc"; echo err >&2')]),
    ]);
    const { events } = await runLocally(plan, dir);
    const stdout = events.of('step-output').filter((e) => e.stream === 'stdout');
    expect(stdout.map((e) => e.data)).toEqual(['ab\n', 'c']);
    expect(events.of('step-output').find((e) => e.stream === 'stderr')?.data).toBe('err\n');
  });
});
