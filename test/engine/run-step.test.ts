import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { backoffDelay, MAX_RETRY_DELAY_MS, readState, type StepExecutor } from '../../src/engine/index.js';
import { createPlaybookStepExecutor } from '../../src/playbook/step-executor.js';
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
    expect(events.of('step-start').map((e) => e.attempt)).toEqual([1, 2, 3]);
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
    expect([1, 2, 3, 4].map((n) => backoffDelay(1000, n))).toEqual([1000, 2000, 4000, 8000]);
    expect(backoffDelay(1000, 30)).toBe(MAX_RETRY_DELAY_MS);
    // A base longer than the cap is kept, not shortened.
    expect(backoffDelay(90_000, 3)).toBe(90_000);
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
    // Hangs on the first attempt only.
    const cmd = `n=$(cat ${counter} 2>/dev/null || echo 0); n=$((n+1)); echo $n > ${counter}; [ $n -ge 2 ] || sleep 30`;
    const plan = makePlan([
      task('t', [], ['localhost'], [shell('hang once', cmd, { timeoutMs: 300, retries: 1, delayMs: 10 })]),
    ]);
    const { summary, events } = await runLocally(plan, join(dir, 'c'));
    expect(summary.status).toBe('succeeded');
    expect(events.of('step-retry')[0]?.result.timedOut).toBe(true);
  });

  it('also stops an executor that ignores timeoutMs, through the attempt signal', async () => {
    const dir = await testTempDir('engine');
    const stubborn: StepExecutor = async (request) => {
      await new Promise((resolve) => request.signal.addEventListener('abort', resolve, { once: true }));
      return { changed: false, failed: true, msg: 'aborted', results: [] };
    };
    const plan = makePlan([
      task('t', [], ['localhost'], [{ name: 'wait', module: 'custom', args: {}, timeoutMs: 200 }]),
    ]);
    const { summary } = await runLocally(plan, dir, { executeStep: stubborn });
    expect(summary.status).toBe('failed');
    expect(summary.error).toContain('timed out');
  });
});

describe('step execution hooks', () => {
  it('routes every attempt through the executor with the step as written; the executor renders it', async () => {
    const dir = await testTempDir('engine');
    const seen: string[] = [];
    const users = createPlaybookStepExecutor();
    const executor: StepExecutor = (request) => {
      seen.push(
        `${request.task.name}/${request.host.name}/${request.step.name}#${request.attempt}:${String(request.step.args['cmd'])}`,
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
    expect(seen).toEqual(['t/localhost/greet#1:echo {{ greeting }}']);
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
