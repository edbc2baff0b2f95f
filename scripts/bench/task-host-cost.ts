import { rm } from 'node:fs/promises';
import { createTransportFactory } from '../../src/executor/create-transport.js';
import { TransportPool } from '../../src/executor/transport-pool.js';
import { loadInventory, loadPlaybook, runPlaybook } from '../../src/playbook/index.js';
import { makeTempDir } from '../lab/temp-dir.js';
import { type FloorOptions, openPersistentShells, writeTruePlaybook } from './ssh-floors.js';
import { median, spread } from './stats.js';

/** kubemix's cost per task-host against the persistent-shell floor, round by round. */
export interface TaskHostCost {
  hosts: number;
  tasks: number;
  rounds: number;
  /** Per round: kubemix's ms per task-host, the floor's, and their ratio. */
  kubemixMs: number[];
  floorMs: number[];
  ratios: number[];
  medianRatio: number;
  ratioSpread: [number, number];
  medianKubemixMs: number;
  medianFloorMs: number;
}

/**
 * #25 item 2: what one task on one host costs kubemix beyond the floor, in one process with every
 * connection already open, so neither start-up nor logins are in it. Each round runs the same
 * `tasks` x `command: /bin/true` playbook through kubemix's playbook runner (`kubemix run`'s
 * engine: templating, when/loop handling, events, its SSH transport's framed shells) on a
 * connection pool kept across rounds, and the floor's bare persistent shells right after it; the
 * figure is the median of the rounds' ratios (a pair shares the machine's load), with their spread.
 */
export async function taskHostCost(
  options: FloorOptions & { inventoryPath: string; rounds: number; forks: number },
): Promise<TaskHostCost> {
  const dir = await makeTempDir('task-host-cost');
  const inventory = await loadInventory(options.inventoryPath);
  const playbook = await loadPlaybook(writeTruePlaybook(dir, options.tasks));
  const transports = createTransportFactory();
  const pool = new TransportPool(transports);
  const shells = await openPersistentShells(options);
  const runKubemix = async () => {
    const started = performance.now();
    const result = await runPlaybook({ playbook, inventory, transports, pool, forks: options.forks });
    if (result.exitCode !== 0) throw new Error(`kubemix's playbook run failed: exit ${result.exitCode}`);
    return performance.now() - started;
  };
  try {
    // The first run opens the pool's connections and shells; a round of each warms the code paths.
    await runKubemix();
    await shells.run(options.tasks);
    const taskHosts = options.tasks * options.hosts.length;
    const kubemixMs: number[] = [];
    const floorMs: number[] = [];
    for (let round = 0; round < options.rounds; round++) {
      kubemixMs.push((await runKubemix()) / taskHosts);
      floorMs.push((await shells.run(options.tasks)) / taskHosts);
    }
    const ratios = kubemixMs.map((ms, i) => ms / floorMs[i]!);
    return {
      hosts: options.hosts.length,
      tasks: options.tasks,
      rounds: options.rounds,
      kubemixMs,
      floorMs,
      ratios,
      medianRatio: median(ratios),
      ratioSpread: spread(ratios),
      medianKubemixMs: median(kubemixMs),
      medianFloorMs: median(floorMs),
    };
  } finally {
    shells.close();
    await pool.closeAll();
    await rm(dir, { recursive: true, force: true });
  }
}
