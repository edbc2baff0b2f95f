import { describe, expect, it } from 'vitest';
import { interceptAtZero } from '../../scripts/bench/fixed-cost.js';
import { cpuSplit } from '../../scripts/bench/machine-cpu.js';

describe('the fixed cost of a run: the intercept of paired whole commands', () => {
  it('is what the command costs with no task, the per-task cost taken off the 1-task run', () => {
    // 10 ms per task: 1 task takes 300 ms, 50 tasks 790 ms, so nothing but the tasks' 10 ms each
    // separates them and the command without a task costs 290 ms.
    expect(interceptAtZero(300, 790, 50)).toBeCloseTo(290, 9);
  });

  it('is the 1-task run itself when more tasks cost nothing more', () => {
    expect(interceptAtZero(300, 300, 50)).toBe(300);
  });
});

describe('where a command CPU went on the machine', () => {
  it("counts everything else's CPU as the machine's busy time less the command's own", () => {
    const split = cpuSplit(10_000, 19_600, 2_400);
    expect(split.commandMs).toBe(2_400);
    expect(split.othersMs).toBe(7_200);
    expect(split.othersFloorMs).toBe(7_200 / split.cores);
  });

  it('never reports negative CPU for the others (the two clocks tick at different rates)', () => {
    expect(cpuSplit(10_000, 10_050, 80).othersMs).toBe(0);
  });
});
