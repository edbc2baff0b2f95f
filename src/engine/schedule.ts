/** A task of a graph the scheduler runs: its name and the names of the tasks it waits for. */
export interface SchedulableTask {
  readonly name: string;
  readonly needs: readonly string[];
}

/**
 * The one scheduler of kubemix: `up`'s plan (a task graph, src/engine/execute.ts) and `kubemix
 * run`'s playbooks (a chain: Ansible's linear strategy, src/playbook/run-playbook.ts) both run
 * through it. It starts every task that `startable` allows once all its needs are in `done`,
 * as many at once as are ready (a task's hosts share the forks limit, engine/limiter.ts), until
 * nothing runs and nothing more may start, or `stopped()` says so. `run` adds the task to `done`
 * when the task did its work (the engine's failed tasks stay out, so what needs them never starts).
 */
export async function schedule<T extends SchedulableTask>(options: {
  tasks: readonly T[];
  done: Set<string>;
  startable: (task: T) => boolean;
  run: (task: T) => Promise<void>;
  stopped: () => boolean;
  abort: () => void;
}): Promise<void> {
  const { tasks, done } = options;
  const started = new Set<string>();
  const running = new Map<string, Promise<void>>();
  const startReady = () => {
    if (options.stopped()) return;
    for (const task of tasks) {
      if (started.has(task.name) || done.has(task.name) || !options.startable(task)) continue;
      if (!task.needs.every((need) => done.has(need))) continue;
      started.add(task.name);
      const run = options.run(task).then(() => {
        running.delete(task.name);
        startReady();
      });
      running.set(task.name, run);
    }
  };
  startReady();
  try {
    while (running.size > 0) await Promise.race(running.values());
  } catch (error) {
    // Only bookkeeping (a state write) can throw here: stop everything, then report it.
    options.abort();
    await Promise.allSettled(running.values());
    throw error;
  }
}
