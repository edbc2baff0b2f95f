import type { TaskGraph } from '../plan/graph.js';
import { runTask, type TaskRunContext, type TaskRunResult } from './run-plan-task.js';
import type { TaskSummary } from './types.js';

/** Starts every task whose needs are done, until nothing is running and nothing more may start. */
export async function schedule(options: {
  graph: TaskGraph;
  selection: Set<string>;
  done: Set<string>;
  summaries: Record<string, TaskSummary>;
  context: TaskRunContext;
  onTaskEnd: (name: string, result: TaskRunResult) => Promise<void>;
  stopped: () => boolean;
  abort: () => void;
}): Promise<void> {
  const { graph, done, summaries, context } = options;
  const started = new Set<string>();
  const running = new Map<string, Promise<void>>();
  const startReady = () => {
    if (options.stopped()) return;
    for (const task of graph.tasks) {
      if (started.has(task.name) || done.has(task.name) || !options.selection.has(task.name)) continue;
      if (summaries[task.name]?.status !== 'pending') continue;
      if (!task.needs.every((need) => done.has(need))) continue;
      started.add(task.name);
      summaries[task.name] = { status: 'running' };
      const run = runTask(context, task).then(async (result) => {
        await options.onTaskEnd(task.name, result);
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
