import { describe, expect, it } from 'vitest';
import { hostPipeline } from '../../scripts/bench/host-pipeline.js';
import { median, spread } from '../../scripts/bench/stats.js';
import type { RunEvent } from '../../src/types/events.js';

const T0 = Date.parse('2026-11-30T00:00:00.000Z');
const at = (s: number) => new Date(T0 + s * 1000).toISOString();
const step = (type: 'step-start' | 'step-end', task: string, host: string, s: number) =>
  ({ type, task, host, step: 'x', attempt: 1, status: 'ok', time: at(s) }) as unknown as RunEvent;

describe('hostPipeline: what the barrier between two tasks cost a build', () => {
  it('compares when the second task ended with each host going on as soon as it finished the first', () => {
    // a is up at 10 s, b at 40 s; prepare starts on both at 40 s (the barrier) and takes a 50 s,
    // b 20 s: it ends at 90 s, where a going on at 10 s would have been done at 60 s, b at 60 s.
    const events = [
      { type: 'run-start', cluster: 'c', tasks: [], time: at(0) } as unknown as RunEvent,
      step('step-end', 'wait-for-hosts', 'a', 10),
      step('step-end', 'wait-for-hosts', 'b', 40),
      step('step-start', 'prepare-linux', 'a', 40),
      step('step-start', 'prepare-linux', 'b', 40),
      step('step-end', 'prepare-linux', 'b', 60),
      step('step-end', 'prepare-linux', 'a', 90),
      {
        type: 'task-end',
        task: 'prepare-linux',
        status: 'done',
        durationMs: 50_000,
        time: at(90),
      } as RunEvent,
    ];
    const result = hostPipeline(events, 'wait-for-hosts', 'prepare-linux')!;
    expect(result.hosts).toEqual({
      a: { readyMs: 10_000, thenMs: 50_000 },
      b: { readyMs: 40_000, thenMs: 20_000 },
    });
    expect(result.actualMs).toBe(90_000);
    expect(result.pipelinedMs).toBe(60_000);
    expect(result.ratio).toBe(1.5);
  });

  it('says nothing of a run that never ran the second task', () => {
    const events = [
      { type: 'run-start', cluster: 'c', tasks: [], time: at(0) } as unknown as RunEvent,
      step('step-end', 'wait-for-hosts', 'a', 10),
    ];
    expect(hostPipeline(events, 'wait-for-hosts', 'prepare-linux')).toBeUndefined();
  });
});

describe('bench statistics', () => {
  it('takes the middle value, or the mean of the middle two, and the extremes', () => {
    expect(median([5, 1, 3])).toBe(3);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(median([])).toBe(0);
    expect(spread([5, 1, 3])).toEqual([1, 5]);
  });
});
