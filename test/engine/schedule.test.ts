import { describe, expect, it } from 'vitest';
import { type SchedulableTask, schedule } from '../../src/engine/schedule.js';

// The one scheduler (up's task graph, kubemix run's chain), driven by tasks that finish when the
// test resolves them: what starts, in which order, and what never starts.

interface Gate {
  started: string[];
  finish(name: string, done?: boolean): void;
}

/** Runs `tasks` through schedule(); each task runs until the test calls finish(name). */
function scheduled(
  tasks: SchedulableTask[],
  options: { stopped?: () => boolean; startable?: (t: SchedulableTask) => boolean } = {},
) {
  const done = new Set<string>();
  const resolvers = new Map<string, (ok: boolean) => void>();
  const gate: Gate = {
    started: [],
    finish(name, ok = true) {
      resolvers.get(name)?.(ok);
    },
  };
  const finished = schedule({
    tasks,
    done,
    startable: options.startable ?? (() => true),
    run: async (task) => {
      gate.started.push(task.name);
      const ok = await new Promise<boolean>((resolve) => resolvers.set(task.name, resolve));
      if (ok) done.add(task.name);
    },
    stopped: options.stopped ?? (() => false),
    abort: () => undefined,
  });
  return { gate, done, finished };
}

/** Lets the scheduler react to what the test resolved (promise callbacks only, no timers). */
const settle = async () => {
  for (let i = 0; i < 5; i++) await Promise.resolve();
};

describe('schedule', () => {
  it('starts the tasks whose needs are done together, and a task once all its needs are', async () => {
    const { gate, finished } = scheduled([
      { name: 'a', needs: [] },
      { name: 'b', needs: [] },
      { name: 'c', needs: ['a', 'b'] },
    ]);
    expect(gate.started).toEqual(['a', 'b']);
    gate.finish('a');
    await settle();
    expect(gate.started).toEqual(['a', 'b']);
    gate.finish('b');
    await settle();
    expect(gate.started).toEqual(['a', 'b', 'c']);
    gate.finish('c');
    await finished;
  });

  it('runs a chain one task at a time, in order (kubemix run)', async () => {
    const { gate, finished, done } = scheduled([
      { name: '0', needs: [] },
      { name: '1', needs: ['0'] },
      { name: '2', needs: ['1'] },
    ]);
    for (const name of ['0', '1', '2']) {
      expect(gate.started.at(-1)).toBe(name);
      gate.finish(name);
      await settle();
    }
    await finished;
    expect([...done]).toEqual(['0', '1', '2']);
  });

  it('never starts what needs a task that did not do its work, nor a task it may not start', async () => {
    const { gate, finished } = scheduled(
      [
        { name: 'a', needs: [] },
        { name: 'b', needs: ['a'] },
        { name: 'skipped', needs: [] },
      ],
      { startable: (t) => t.name !== 'skipped' },
    );
    gate.finish('a', false);
    await finished;
    expect(gate.started).toEqual(['a']);
  });

  it('starts nothing more once stopped, and waits for what runs', async () => {
    let stopped = false;
    const { gate, finished } = scheduled(
      [
        { name: 'a', needs: [] },
        { name: 'b', needs: ['a'] },
      ],
      { stopped: () => stopped },
    );
    stopped = true;
    gate.finish('a');
    await finished;
    expect(gate.started).toEqual(['a']);
  });
});
