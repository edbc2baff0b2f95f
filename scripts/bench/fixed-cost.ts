import { kubemixRunBench } from './kubemix-run-bench.js';
import { median, spread } from './stats.js';

/** #25 item 3's fixed cost of a run, as the intercept of paired whole commands. */
export interface FixedCost {
  hosts: number;
  /** Tasks of the longer command of each pair (the shorter runs one). */
  tasks: number;
  rounds: number;
  /** Per round: the 1-task command's wall time, the longer one's, and the intercept they give. */
  oneTaskMs: number[];
  manyTasksMs: number[];
  interceptMs: number[];
  medianInterceptMs: number;
  interceptSpread: [number, number];
  medianOneTaskMs: number;
}

/** Where the line through (1 task, `oneMs`) and (`tasks` tasks, `manyMs`) meets zero tasks. */
export function interceptAtZero(oneMs: number, manyMs: number, tasks: number): number {
  return oneMs - (manyMs - oneMs) / (tasks - 1);
}

/**
 * What a `kubemix run` costs before its tasks: node's start-up, module loading and the SSH logins.
 * Each round runs the whole command twice on the same hosts, with 1 task and with `tasks` tasks,
 * back to back so they share the machine's load, and the line through the two points gives the
 * cost at zero tasks. The figure is the median of the rounds' intercepts,
 * with their spread. (Taken before from one whole command minus the in-process per-task cost,
 * it counted the whole command's own per-task cost, its JSON log lines among it, as fixed.)
 */
export async function fixedCost(options: {
  inventoryPath: string;
  hosts: number;
  tasks: number;
  forks: number;
  rounds: number;
}): Promise<FixedCost> {
  const run = async (tasks: number) =>
    (
      await kubemixRunBench({
        inventoryPath: options.inventoryPath,
        hostsCount: options.hosts,
        tasks,
        forks: options.forks,
      })
    ).wallMs;
  // One pair first, not counted: the page cache and the lab's first logins warm up.
  await run(1);
  await run(options.tasks);
  const oneTaskMs: number[] = [];
  const manyTasksMs: number[] = [];
  for (let round = 0; round < options.rounds; round++) {
    oneTaskMs.push(await run(1));
    manyTasksMs.push(await run(options.tasks));
  }
  const interceptMs = oneTaskMs.map((one, i) => interceptAtZero(one, manyTasksMs[i]!, options.tasks));
  return {
    hosts: options.hosts,
    tasks: options.tasks,
    rounds: options.rounds,
    oneTaskMs,
    manyTasksMs,
    interceptMs,
    medianInterceptMs: median(interceptMs),
    interceptSpread: spread(interceptMs),
    medianOneTaskMs: median(oneTaskMs),
  };
}
