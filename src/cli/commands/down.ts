import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { acquireLock, readState, secretsPath, writeState } from '../../engine/index.js';
import { clusterKnownHostsPath } from '../../provider/cluster-key.js';
import type { Plan } from '../../types/plan.js';
import { type ClusterContext, loadClusterContext, teardownDir as teardownDirOf } from '../cluster-context.js';
import { onePositional, SHORT_FORM_HELP } from '../options.js';
import { type PlanRunOutcome, type RunFlags, runPlanCommand } from '../run-plan-command.js';
import { parseRunCommand, RUN_HELP } from './run-command-args.js';

export const downHelp = `Usage: kubemix down <spec> [options]

Tear the cluster down. Static machines: the cleanup task (kubeadm reset on every node, cluster
files removed); the machines stay, clean. Machines kubemix created (libvirt): every resource the
state recorded is destroyed (guests, their disks and seed ISOs, the network), also after a failed
or killed \`up\` and when some are gone already; then a leak check looks for anything of the
cluster left on each hypervisor, names it and exits 1. Console logs of the guests are kept in
<cluster-dir>/console. Cached base images stay for the next cluster unless --purge-images.
After a teardown that finished, the cluster directory forgets the build (its tasks, outputs and
secrets): the next \`up\` builds again. The run logs stay.

Options:
  --purge-images             also delete the cached base images and ISOs the cluster used
                             (kept when another cluster's disks are built on them)
${RUN_HELP}
${SHORT_FORM_HELP}`;

export async function downCommand(argv: string[]): Promise<number> {
  const args = parseRunCommand('down', argv, { 'purge-images': { type: 'boolean' } }, downHelp);
  if (!args) return 0;
  const { values, positionals, flags } = args;
  const context = await loadClusterContext(onePositional('down', positionals, 'spec'), values);
  const plan = context.downPlan(await readState(context.clusterDir), {
    purgeImages: values['purge-images'] === true,
  });
  const { code } = await tearDownCluster(context, plan, flags);
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
    const outcome = await runPlanCommand(plan, teardownDir, {
      ...flags,
      ...(state ? { ledgerDir: clusterDir } : {}),
    });
    // The cluster is gone: the build's record (done tasks, join tokens) would make the next `up`
    // skip everything. A failed down keeps it, so `down` can be run again.
    if (outcome.code === 0 && state) await forgetBuild(clusterDir);
    if (outcome.code === 0) await rm(teardownDir, { recursive: true, force: true });
    return outcome;
  } finally {
    await buildLock.release();
  }
}

async function forgetBuild(clusterDir: string): Promise<void> {
  const state = await readState(clusterDir);
  if (!state) return;
  await writeState(clusterDir, {
    ...state,
    tasks: {},
    outputs: {},
    assignments: {},
    resources: state.resources.filter((r) => r.status !== 'deleted'),
  });
  await rm(clusterKnownHostsPath(clusterDir), { force: true });
  await rm(secretsPath(clusterDir), { force: true });
}
