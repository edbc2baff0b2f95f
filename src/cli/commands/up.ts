import { existsSync } from 'node:fs';
import {
  adminConfPath,
  type ClusterContext,
  refuseUnusableCredentials,
  teardownDir,
} from '../../cluster/index.js';
import { acquireLock, forgetRun, readState } from '../../engine/index.js';
import { EXIT } from '../../errors/index.js';
import { kubeconfigKey } from '../../kubeconfig/merge.js';
import { hostsConnectedBy } from '../../plan/credential-check.js';
import { shQuote } from '../../quote/index.js';
import { type Plan, TASK_NAMES } from '../../types/plan.js';
import { clusterFromFlags } from '../cluster-flags.js';
import { onePositional, SHORT_FORM_HELP } from '../options.js';
import { out } from '../output.js';
import { type PlanRunOutcome, type RunFlags, runPlanCommand } from '../run-plan-command.js';
import { reportVerifyChecks } from '../verify-report.js';
import { parseRunCommand, RUN_HELP, specArguments } from './run-command-args.js';

export const upHelp = `Usage: kubemix up <spec> [options]

Build the cluster: run the plan (see \`kubemix plan\`). A second run resumes after the last
completed task. Ctrl-C stops the running steps and records state.

Tasks: ${TASK_NAMES.filter((t) => t !== 'cleanup').join(', ')}

Options:
  --stop-after TASK          stop once TASK (and what it needs) is done
  --stop-before TASK         stop before TASK starts
  --from TASK                redo TASK and everything after it
${RUN_HELP}
${SHORT_FORM_HELP}`;

export async function upCommand(argv: string[]): Promise<number> {
  const args = parseRunCommand(
    'up',
    argv,
    {
      'stop-after': { type: 'string' },
      'stop-before': { type: 'string' },
      from: { type: 'string' },
    },
    upHelp,
  );
  if (!args) return EXIT.ok;
  const { values, positionals, flags } = args;
  const specArgument = onePositional('up', positionals, 'spec');
  const context = await clusterFromFlags(specArgument, values);
  // Planned twice: the first plan stops bad input before anything is written; the one that runs is
  // made after the cluster key exists, because the guests' cloud-init seeds carry its public half.
  refuseUnusableCredentials(hostsConnectedBy(context.upPlan()));
  await context.ensureClusterKey();
  const plan = context.upPlan();
  const again = specArguments(specArgument, values);
  const { code } = await buildCluster(context, plan, {
    ...flags,
    resumeCommand: (ended) => resumeUpCommand(again, values, ended),
    ...(values['stop-after'] !== undefined ? { stopAfter: values['stop-after'] } : {}),
    ...(values['stop-before'] !== undefined ? { stopBefore: values['stop-before'] } : {}),
    ...(values.from !== undefined ? { from: values.from } : {}),
  });
  if (flags.logFormat === 'text') {
    await reportVerifyChecks(plan, context.clusterDir);
    await printNextSteps(context, again);
  }
  return code;
}

/**
 * The `up` that goes on: after a requested stop, without --stop-after/--stop-before (the same
 * command would stop at the same place again); after an interruption, with the same stop, and
 * never --from (the run already marked those tasks to redo: repeating it would redo the ones
 * done since).
 */
function resumeUpCommand(
  again: string[],
  values: { 'stop-after'?: string; 'stop-before'?: string },
  ended: 'stopped' | 'interrupted',
): string {
  const words = ['kubemix', 'up', ...again];
  if (ended === 'interrupted')
    for (const flag of ['stop-after', 'stop-before'] as const) {
      const task = values[flag];
      if (task !== undefined) words.push(`--${flag}`, shQuote(task));
    }
  return words.join(' ');
}

/**
 * What `up` does once its flags are read (also `kubemix ci`'s build): run the build plan. The
 * plan must be made after `context.ensureClusterKey()`: machines kubemix creates get the cluster's
 * own SSH key (made once, 0600 in the cluster dir), and a plan made before it has none to give.
 */
export async function buildCluster(
  context: ClusterContext,
  plan: Plan,
  flags: RunFlags,
): Promise<PlanRunOutcome> {
  // A build makes the last teardown's record stale: the next `down` must clean up again.
  const lock = await acquireLock(context.clusterDir);
  try {
    await forgetRun(teardownDir(context.clusterDir));
  } finally {
    await lock.release();
  }
  return runPlanCommand(plan, context.clusterDir, flags);
}

/**
 * After a complete build: how to reach the cluster (kind and kubeadm end the same way). `again`
 * is the spec and options that select this cluster, to repeat in the kubeconfig command.
 */
async function printNextSteps(context: ClusterContext, again: string[]): Promise<void> {
  const admin = adminConfPath(context.clusterDir);
  const state = await readState(context.clusterDir);
  if (state?.lastRun?.status !== 'succeeded' || !existsSync(admin)) return;
  out(`
Cluster ${context.spec.name} is up. To use it:
  export KUBECONFIG=${shQuote(admin)}
  kubectl get nodes -o wide
or add it to your kubeconfig as context ${kubeconfigKey(context.spec.name)}:
  kubemix kubeconfig ${again.join(' ')} --merge`);
}
