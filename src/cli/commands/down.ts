import { existsSync } from 'node:fs';
import { mkdir, readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import {
  adminConfPath,
  type ClusterContext,
  refuseUnusableCredentials,
  teardownDir as teardownDirOf,
} from '../../cluster/index.js';
import { acquireLock, forgetBuild, forgetRun, readState } from '../../engine/index.js';
import {
  kubeconfigKey,
  mergedKubeconfigs,
  mergeRecordPath,
  removeFromKubeconfig,
} from '../../kubeconfig/index.js';
import { hostsConnectedBy } from '../../plan/credential-check.js';
import { clusterKnownHostsPath } from '../../provider/cluster-key.js';
import type { Plan } from '../../types/plan.js';
import { clusterFromFlags } from '../cluster-flags.js';
import { onePositional, SHORT_FORM_HELP } from '../options.js';
import { out } from '../output.js';
import { type PlanRunOutcome, type RunFlags, runPlanCommand } from '../run-plan-command.js';
import { parseRunCommand, RUN_HELP, specArguments } from './run-command-args.js';

export const downHelp = `Usage: kubemix down <spec> [options]

Tear the cluster down. Static machines: the cleanup task (kubeadm reset on every node, cluster
files removed); the machines stay, clean. Machines kubemix created (libvirt): every resource the
state recorded is destroyed (guests, their disks and seed ISOs, the network), also after a failed
or killed \`up\` and when some are gone already; then a leak check looks for anything of the
cluster left on each hypervisor, names it and exits 1. Console logs of the guests are kept in
<cluster-dir>/console. Cached base images stay for the next cluster unless --purge-images.
After a teardown that finished, the cluster directory forgets the build (its tasks, outputs and
secrets) and records when it was torn down: the next \`up\` builds again. admin.conf is removed,
and so are the kubemix-<name> entries \`kubemix kubeconfig --merge\` wrote into kubeconfig files.
The event logs of the build and of the teardown stay (runs/, teardown/runs/).

Options:
  --purge-images             also delete the cached base images and ISOs the cluster used
                             (kept when another cluster's disks are built on them)
${RUN_HELP}
${SHORT_FORM_HELP}`;

export async function downCommand(argv: string[]): Promise<number> {
  const args = parseRunCommand('down', argv, { 'purge-images': { type: 'boolean' } }, downHelp);
  if (!args) return 0;
  const { values, positionals, flags } = args;
  const specArgument = onePositional('down', positionals, 'spec');
  const context = await clusterFromFlags(specArgument, values);
  const purgeImages = values['purge-images'] === true;
  const plan = context.downPlan(await readState(context.clusterDir), { purgeImages });
  refuseUnusableCredentials(hostsConnectedBy(plan));
  const again = [
    'kubemix',
    'down',
    ...specArguments(specArgument, values),
    ...(purgeImages ? ['--purge-images'] : []),
  ];
  const { code } = await tearDownCluster(context, plan, { ...flags, resumeCommand: () => again.join(' ') });
  return code;
}

/**
 * What `down` does once its flags are read (also `kubemix ci`'s teardown): run the teardown plan
 * (made from the build's state: `context.downPlan(state)`), then forget the build once it finished.
 */
export async function tearDownCluster(
  context: ClusterContext,
  plan: Plan,
  flags: RunFlags,
): Promise<PlanRunOutcome> {
  const { clusterDir } = context;
  // Teardown keeps its own state beside the build's, so a half-done `down` resumes too; it also
  // holds the build's lock, so `down` never runs under a live `up` (and the reverse). What it
  // destroys is recorded in the build's state, the one truth about what exists.
  const buildLock = await acquireLock(clusterDir);
  try {
    const state = await readState(clusterDir);
    await mkdir(join(clusterDir, 'console'), { recursive: true, mode: 0o700 });
    const teardownDir = teardownDirOf(clusterDir);
    const buildEventLog = await newestEventLog(clusterDir);
    const outcome = await runPlanCommand(plan, teardownDir, {
      ...flags,
      ...(state ? { ledgerDir: clusterDir } : {}),
    });
    // A failed down keeps every record, so `down` can be run again.
    if (outcome.code !== 0) return outcome;
    // The cluster is gone: the build's record (done tasks, join tokens) would make the next `up`
    // skip everything, and the teardown's would make the next `down` skip its cleanup. The event
    // logs of both stay, named in the state.
    if (state)
      await forgetBuild(clusterDir, {
        at: new Date().toISOString(),
        eventLog: outcome.logPath,
        ...(buildEventLog ? { buildEventLog } : {}),
      });
    await forgetRun(teardownDir);
    await forgetClusterAccess(context, flags.logFormat);
    return outcome;
  } finally {
    await buildLock.release();
  }
}

/**
 * What let this machine reach the cluster: the known host keys of machines kubemix created, the
 * admin kubeconfig, and the kubemix-<name> entries `kubemix kubeconfig --merge` wrote into the
 * user's kubeconfig files (removed as `kind delete cluster` removes its own).
 */
async function forgetClusterAccess(context: ClusterContext, logFormat: RunFlags['logFormat']): Promise<void> {
  const { clusterDir, spec } = context;
  await rm(clusterKnownHostsPath(clusterDir), { force: true });
  await rm(adminConfPath(clusterDir), { force: true });
  for (const file of await mergedKubeconfigs(clusterDir)) {
    const removed = await removeFromKubeconfig({ target: file, clusterName: spec.name });
    if (removed && logFormat === 'text') out(`removed context ${kubeconfigKey(spec.name)} from ${file}`);
  }
  await rm(mergeRecordPath(clusterDir), { force: true });
}

/** The newest JSON-lines event log of the cluster directory's runs (the build's last), if any. */
async function newestEventLog(clusterDir: string): Promise<string | undefined> {
  const runs = join(clusterDir, 'runs');
  if (!existsSync(runs)) return undefined;
  // Named by their start time (ISO, colons replaced): the names sort in time order.
  const newest = (await readdir(runs))
    .filter((f) => f.endsWith('.jsonl'))
    .sort()
    .at(-1);
  return newest ? join(runs, newest) : undefined;
}
