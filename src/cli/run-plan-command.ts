import { join } from 'node:path';
import { runClusterPlan } from '../cluster/index.js';
import { type RunSummary, readSecrets } from '../engine/index.js';
import { EXIT } from '../errors/index.js';
import { createTransportFactory } from '../executor/create-transport.js';
import { clusterKnownHostsPath } from '../provider/cluster-key.js';
import type { RunEventListener } from '../types/events.js';
import type { Plan } from '../types/plan.js';
import { err, out } from './output.js';
import { startRunSession } from './run-session.js';

/** Reads `<output>.<key>` from the secret outputs of a cluster (any host's), at the moment of asking. */
export function secretReader(clusterDir: string) {
  return async (path: string): Promise<string | undefined> => {
    const [output, ...key] = path.split('.');
    for (const outputs of Object.values(await readSecrets(clusterDir))) {
      const value = key.reduce<unknown>(
        (at, part) => (at && typeof at === 'object' ? (at as Record<string, unknown>)[part] : undefined),
        outputs[output ?? ''],
      );
      if (typeof value === 'string') return value;
    }
    return undefined;
  };
}

/** Flags shared by `up` and `down`. */
export interface RunFlags {
  forks?: number;
  stopAfter?: string;
  stopBefore?: string;
  from?: string;
  logFormat: 'text' | 'json';
  /** Record provider resources in this cluster directory's state (down: the build's). */
  ledgerDir?: string;
  /** -v, -vv, -vvv: 0 to 3. */
  verbosity?: number;
  /** More subscribers of the run's events (the CI report). */
  listeners?: RunEventListener[];
  /** The caller's stop signal; without one, the run stops on Ctrl-C / SIGTERM itself. */
  signal?: AbortSignal;
  /**
   * The command that goes on from where this run ended, for the hint after a requested stop or
   * an interruption (after --stop-after it is not the same command: that stops at the same place
   * again). Without it no command is suggested: `kubemix ci` says itself what comes next.
   */
  resumeCommand?: (ended: 'stopped' | 'interrupted') => string;
}

/** How a run ended, for callers that report more than the exit code (`kubemix ci`). */
export interface PlanRunOutcome {
  code: number;
  summary: RunSummary;
  /** The run's JSON-lines event log in the cluster directory. */
  logPath: string;
}

/**
 * A run's exit code in the one table (EXIT_CODES): ok also for a requested stop; bad input when
 * every failure is a check that found the user's input wrong before anything was made.
 */
export function exitCodeFor(summary: RunSummary): number {
  if (summary.status === 'succeeded' || summary.status === 'stopped') return EXIT.ok;
  if (summary.status === 'interrupted') return EXIT.interrupted;
  if (summary.failures.length > 0 && summary.failures.every((f) => f.inputError)) return EXIT.badInput;
  return EXIT.failed;
}

/** Prints what failed, where, and what ran; then how to go on. */
function printOutcome(summary: RunSummary, clusterDir: string, logPath: string, flags: RunFlags): void {
  for (const failure of summary.failures) {
    err(`FAILED ${failure.task} on ${failure.host}: ${failure.step}`);
    err(`  ran: ${failure.command}`);
    err(`  exit code: ${failure.exitCode ?? 'none'}`);
    if (failure.stderrTail) err(`  ${failure.stderrTail.split('\n').join('\n  ')}`);
  }
  if (summary.status === 'failed' && summary.failures.length === 0 && summary.error)
    err(`FAILED: ${summary.error}`);
  const resume = (ended: 'stopped' | 'interrupted') =>
    flags.resumeCommand ? `; to go on: ${flags.resumeCommand(ended)}` : '';
  if (summary.status === 'stopped') out(`stopped as asked${resume('stopped')} (state in ${clusterDir})`);
  if (summary.status === 'interrupted') err(`interrupted${resume('interrupted')} (state in ${clusterDir})`);
  out(`event log: ${logPath}`);
}

/**
 * Runs a plan with the renderers the situation calls for. Every run also leaves a JSON-lines
 * event log in the cluster directory (runs/<time>.jsonl) for CI and post-mortems; the engine
 * has already redacted secrets from the events.
 */
export async function runPlanWithRenderers(plan: Plan, clusterDir: string, flags: RunFlags): Promise<number> {
  return (await runPlanCommand(plan, clusterDir, flags)).code;
}

/** {@link runPlanWithRenderers}, returning the engine's summary too. */
export async function runPlanCommand(
  plan: Plan,
  clusterDir: string,
  flags: RunFlags,
): Promise<PlanRunOutcome> {
  const logPath = join(clusterDir, 'runs', `${new Date().toISOString().replaceAll(':', '-')}.jsonl`);
  const session = await startRunSession({
    logFormat: flags.logFormat,
    logPath,
    ...(flags.listeners ? { listeners: flags.listeners } : {}),
    ...(flags.signal ? { signal: flags.signal } : {}),
    ...(flags.verbosity ? { verbosity: flags.verbosity } : {}),
  });
  let summary: RunSummary;
  try {
    summary = await runClusterPlan({
      plan,
      clusterDir,
      // Hosts kubemix created are trusted on first use; their keys go to the cluster's own known_hosts.
      transports: createTransportFactory({
        clusterKnownHosts: clusterKnownHostsPath(clusterDir),
        readSecret: secretReader(flags.ledgerDir ?? clusterDir),
      }),
      onEvent: session.onEvent,
      signal: session.signal,
      ...(flags.forks !== undefined ? { forks: flags.forks } : {}),
      ...(flags.stopAfter !== undefined ? { stopAfter: flags.stopAfter } : {}),
      ...(flags.stopBefore !== undefined ? { stopBefore: flags.stopBefore } : {}),
      ...(flags.from !== undefined ? { from: flags.from } : {}),
      ...(flags.ledgerDir !== undefined ? { ledgerDir: flags.ledgerDir } : {}),
    });
  } finally {
    await session.finish();
  }
  if (flags.logFormat !== 'json') printOutcome(summary, clusterDir, logPath, flags);
  return { code: exitCodeFor(summary), summary, logPath };
}
