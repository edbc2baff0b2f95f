import { spawnSync } from 'node:child_process';
import { rm } from 'node:fs/promises';
import { kubemixCli } from '../lab/kubemix-cli.js';
import { makeTempDir } from '../lab/temp-dir.js';
import { median, spread } from './stats.js';

/** The commands #25 holds to a start-up target: each runs as users run it (the bundled CLI). */
export const STARTUP_COMMANDS: ReadonlyArray<{ name: string; args: string[] }> = [
  { name: 'plan k8s-libvirt-1-1-1', args: ['plan', 'k8s-libvirt-1-1-1'] },
  { name: 'status k8s-libvirt-1-1-1', args: ['status', 'k8s-libvirt-1-1-1'] },
  { name: 'versions', args: ['versions'] },
  { name: '--help', args: ['--help'] },
];

/** One command's wall times, paired with `node -e 0` run just before each. */
export interface StartupFigure {
  command: string;
  runs: number;
  medianMs: number;
  /** Fastest and slowest of the runs. */
  spreadMs: [number, number];
  /** `node -e 0`'s median over the same runs. */
  nodeMedianMs: number;
  /** The median of each pair's ratio (command / node -e 0): the machine's load cancels in a pair. */
  ratio: number;
  ratioSpread: [number, number];
}

/** Wall time of one whole process, from spawn to exit; throws when it fails. */
function timed(args: string[], env: NodeJS.ProcessEnv): number {
  const started = performance.now();
  const run = spawnSync(process.execPath, args, { env, stdio: ['ignore', 'ignore', 'pipe'] });
  const ms = performance.now() - started;
  if (run.status !== 0) throw new Error(`node ${args.join(' ')} exited ${run.status}: ${run.stderr}`);
  return ms;
}

/**
 * Start-up of the commands users run most (#25 item 1: within 250 ms wall and 3x a bare
 * `node -e 0`): each run of a command is paired with a `node -e 0` just before it, `runs` pairs
 * after one unmeasured warm-up pair (the file cache). HOME is an empty directory, so `status`
 * finds no cluster and nothing the user has changes what is loaded.
 */
export async function startupBench(runs = 10): Promise<StartupFigure[]> {
  const home = await makeTempDir('bench-startup');
  const env = { ...process.env, HOME: home, CI: 'true' };
  const cli = kubemixCli();
  const figures: StartupFigure[] = [];
  try {
    for (const command of STARTUP_COMMANDS) figures.push(measure(command, cli, env, runs));
  } finally {
    await rm(home, { recursive: true, force: true });
  }
  return figures;
}

/** One command's paired runs. */
function measure(
  command: (typeof STARTUP_COMMANDS)[number],
  cli: string,
  env: NodeJS.ProcessEnv,
  runs: number,
): StartupFigure {
  const args = [cli, ...command.args];
  timed(['-e', '0'], env);
  timed(args, env);
  const node: number[] = [];
  const own: number[] = [];
  for (let i = 0; i < runs; i++) {
    node.push(timed(['-e', '0'], env));
    own.push(timed(args, env));
  }
  const ratios = own.map((ms, i) => ms / node[i]!);
  return {
    command: command.name,
    runs,
    medianMs: median(own),
    spreadMs: spread(own),
    nodeMedianMs: median(node),
    ratio: median(ratios),
    ratioSpread: spread(ratios),
  };
}
