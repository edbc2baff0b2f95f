import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { lastRunLine } from '../../src/cli/last-run-line.js';
import { runClusterPlan } from '../../src/cluster/run-plan.js';
import { readState } from '../../src/engine/index.js';
import type { Plan } from '../../src/types/plan.js';
import { localTransports, makePlan, shell, task, waitFor } from '../engine/helpers.js';
import { testTempDir } from '../helpers/temp.js';

/** The line `kubemix status` prints for the state a real engine run left behind. */
async function lineAfter(plan: Plan, signal?: AbortSignal, started?: () => Promise<void>) {
  const clusterDir = join(await testTempDir('last-run'), 'cluster');
  const run = runClusterPlan({
    plan,
    clusterDir,
    transports: localTransports,
    ...(signal ? { signal } : {}),
  });
  await started?.();
  await run;
  const state = await readState(clusterDir);
  return lastRunLine(state!.lastRun!);
}

describe("status's last-run line", () => {
  it('an interrupted run before any step: the status once, not "interrupted: interrupted"', async () => {
    const controller = new AbortController();
    controller.abort();
    const line = await lineAfter(
      makePlan([task('a', [], ['localhost'], [shell('a', 'true')])]),
      controller.signal,
    );
    expect(line).toBe('last run: interrupted');
  });

  it('an interrupted step: the status once as well', async () => {
    const dir = await testTempDir('last-run');
    const controller = new AbortController();
    const plan = makePlan([
      task('a', [], ['localhost'], [shell('a', `touch ${dir}/started; exec sleep 30`)]),
    ]);
    const line = await lineAfter(plan, controller.signal, async () => {
      await waitFor(() => existsSync(join(dir, 'started')), 10_000, 'the step to start');
      controller.abort();
    });
    expect(line).toBe('last run: interrupted');
  });

  it('a failed run: the failure message names the task, so "at <task>" is not said before it', async () => {
    const line = await lineAfter(makePlan([task('a', [], ['localhost'], [shell('boom', 'exit 7')])]));
    expect(line).toMatch(
      /^last run: failed: task a failed on host localhost: step "boom" ran `exit 7`: exit code 7/,
    );
  });

  it('a successful run: the status alone', async () => {
    expect(await lineAfter(makePlan([task('a', [], ['localhost'], [shell('a', 'true')])]))).toBe(
      'last run: succeeded',
    );
  });
});
