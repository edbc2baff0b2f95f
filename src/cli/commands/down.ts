import { acquireLock, forgetRun } from '../../engine/index.js';
import type { Plan } from '../../types/plan.js';
import { type ClusterContext, loadClusterContext, teardownDir } from '../cluster-context.js';
import {
  choiceOption,
  intOption,
  onePositional,
  parseCommandArgs,
  SHORT_FORM_HELP,
  SHORT_FORM_OPTIONS,
} from '../options.js';
import { out } from '../output.js';
import { type PlanRunOutcome, type RunFlags, runPlanCommand } from '../run-plan-command.js';
import { RUN_HELP, RUN_OPTIONS } from './up.js';

export const downHelp = `Usage: kubemix down <spec> [options]

Tear the cluster down: the cleanup task (kubeadm reset on every node, cluster files removed),
then, for libvirt and EC2, destroy what kubemix created. Static machines are left, clean.

Options:
${RUN_HELP}
${SHORT_FORM_HELP}`;

export async function downCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs('down', argv, { ...SHORT_FORM_OPTIONS, ...RUN_OPTIONS });
  if (values.help) {
    out(downHelp);
    return 0;
  }
  const forks = intOption('forks', values.forks, { min: 1 });
  const logFormat = choiceOption('log-format', values['log-format'], ['text', 'json'] as const) ?? 'text';
  const context = await loadClusterContext(onePositional('down', positionals, 'spec'), values);
  const { code } = await tearDownCluster(context, context.downPlan(), {
    logFormat,
    ...(forks !== undefined ? { forks } : {}),
  });
  return code;
}

/** What `down` does once its flags are read (also `kubemix ci`'s teardown): run the teardown plan. */
export async function tearDownCluster(
  context: ClusterContext,
  plan: Plan,
  flags: RunFlags,
): Promise<PlanRunOutcome> {
  // Teardown keeps its own state beside the build's, so a half-done `down` resumes too; it also
  // holds the build's lock, so `down` never runs under a live `up` (and the reverse).
  const buildLock = await acquireLock(context.clusterDir);
  try {
    const outcome = await runPlanCommand(plan, teardownDir(context.clusterDir), flags);
    // The cluster is gone: the build's record (done tasks, join tokens) would make the next `up`
    // skip everything. A failed down keeps it, so `down` can be run again.
    if (outcome.code === 0) await forgetRun(context.clusterDir);
    return outcome;
  } finally {
    await buildLock.release();
  }
}
