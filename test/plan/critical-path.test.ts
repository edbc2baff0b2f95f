import { describe, expect, it } from 'vitest';
import { criticalPath } from '../../src/plan/index.js';
import type { PlanTask } from '../../src/types/plan.js';

const task = (name: string, needs: string[] = []): PlanTask => ({
  name,
  description: '',
  needs,
  hosts: [],
  steps: [],
  implemented: true,
});

describe('criticalPath', () => {
  // The mixed-cluster shape: Windows preparation beside the Linux control plane.
  const tasks = [
    task('wait'),
    task('prepare-linux', ['wait']),
    task('init', ['prepare-linux']),
    task('prepare-windows', ['wait']),
    task('join-windows', ['prepare-windows', 'init']),
    task('verify', ['join-windows']),
  ];

  it('follows the slower branch', () => {
    const path = criticalPath(tasks, {
      wait: 1,
      'prepare-linux': 2,
      init: 3,
      'prepare-windows': 10,
      'join-windows': 4,
      verify: 1,
    });
    expect(path).toEqual({ tasks: ['wait', 'prepare-windows', 'join-windows', 'verify'], durationMs: 16 });
  });

  it('switches branch when the other one is slower', () => {
    const path = criticalPath(tasks, {
      wait: 1,
      'prepare-linux': 20,
      init: 3,
      'prepare-windows': 10,
      'join-windows': 4,
      verify: 1,
    });
    expect(path).toEqual({
      tasks: ['wait', 'prepare-linux', 'init', 'join-windows', 'verify'],
      durationMs: 29,
    });
  });

  it('counts tasks without a duration as zero', () => {
    expect(criticalPath(tasks, {}).durationMs).toBe(0);
  });
});
