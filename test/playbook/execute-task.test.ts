import { describe, expect, it } from 'vitest';
import { MAX_GROWING_DELAY_MS, retryDelayMs } from '../../src/playbook/execute-task.js';
import { taskForPlanStep } from '../../src/playbook/plan-step.js';
import type { Task } from '../../src/playbook/types.js';
import { cloudInitWaitStep } from '../../src/provider/cloud-init-wait.js';
import { windowsRenamedWaitStep } from '../../src/provider/ec2/windows-rename-wait.js';

/** The waits between the attempts of a step that fails every time (the step sets its delay and backoff). */
function waits(task: Task): number[] {
  const { delay, backoff, retries } = task;
  if (delay === undefined || backoff === undefined || retries === undefined)
    throw new Error('not a retried step');
  return Array.from({ length: retries }, (_, i) => retryDelayMs(delay * 1000, backoff, i + 1));
}

describe('the delays of the one attempt loop', () => {
  it('keeps a fixed delay fixed (backoff 1: every Ansible playbook), however long', () => {
    expect([1, 2, 10].map((n) => retryDelayMs(5000, 1, n))).toEqual([5000, 5000, 5000]);
    expect(retryDelayMs(120_000, 1, 4)).toBe(120_000);
  });

  it('caps a growing delay at 60 s, or at its base when that is longer', () => {
    expect(retryDelayMs(2000, 2, 6)).toBe(MAX_GROWING_DELAY_MS);
    expect(retryDelayMs(90_000, 2, 2)).toBe(90_000);
  });

  it('waits out cloud-init with the delay doubling from 2 s', () => {
    const task = taskForPlanStep(cloudInitWaitStep());
    expect(task).toMatchObject({ retries: 8, backoff: 2, retryUnreachable: true });
    expect(waits(task)).toEqual([2000, 4000, 8000, 16_000, 32_000, 60_000, 60_000, 60_000]);
  });

  it("waits about 9 minutes for an EC2 Windows rename's restart: 5 s doubling to 60 s", () => {
    const task = taskForPlanStep(windowsRenamedWaitStep());
    const all = waits(task);
    expect(all.slice(0, 5)).toEqual([5000, 10_000, 20_000, 40_000, 60_000]);
    expect(all).toHaveLength(12);
    expect(all.reduce((sum, ms) => sum + ms, 0)).toBe(555_000);
  });

  it('leaves the retries of a playbook step to its keywords, as written', () => {
    const task = taskForPlanStep({
      name: 'until ready',
      module: 'command',
      args: { cmd: 'true' },
      keywords: { until: 'r.rc == 0', retries: 30, delay: 10 },
    });
    expect(task).toMatchObject({ retries: 30, delay: 10 });
    expect(task.backoff).toBeUndefined();
    expect(task.retryUnreachable).toBeUndefined();
  });
});
