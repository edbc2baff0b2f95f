import { join } from 'node:path';
import { ArtifactLogs } from '../../ci/artifact-logs.js';
import type { SummaryInput } from '../../ci/build-summary.js';
import { RunRecorder } from '../../ci/run-recorder.js';
import { buildPhases } from '../../ci/timeline.js';
import { finalExitCode, writeReports } from '../../ci/write-reports.js';
import { type ClusterContext, knownSecretValues } from '../../cluster/index.js';
import { ensurePrivateDir, readState, writePrivateFile } from '../../engine/index.js';
import type { Plan } from '../../types/plan.js';
import { type CheckResult, checksToJson } from '../../verify/checks.js';
import { tearDownCluster } from '../commands/down.js';
import { buildCluster } from '../commands/up.js';
import { err, out } from '../output.js';
import type { PlanRunOutcome } from '../run-plan-command.js';
import { collectVerifyChecks, printVerifyChecks } from '../verify-report.js';
import { versionsUsed, writeInputs } from './inputs.js';
import { printEnding } from './print-ending.js';
import { CiStopper } from './stopper.js';

/** What `kubemix ci` was asked, once its flags and spec are checked. */
export interface CiOptions {
  context: ClusterContext;
  /** The spec argument and the options selecting the cluster, shell-quoted (for the `down` hint). */
  specWords: string[];
  outDir: string;
  timeoutMs?: number;
  timeoutText?: string;
  keepOnFailure: boolean;
  history?: { dir: string; keep: number };
  forks?: number;
  logFormat: 'text' | 'json';
  /** -v, -vv, -vvv: the build's and the teardown's output as `up` and `down` show it. */
  verbosity?: number;
}

/** How the build and the teardown went. */
interface PhaseOutcomes {
  build?: PlanRunOutcome;
  buildError?: string;
  checks?: CheckResult[];
  knownSecrets: string[];
  teardown?: PlanRunOutcome;
  teardownError?: string;
  kept: boolean;
}

/**
 * up -> verify -> down in one run, through the same code paths as those commands: the build plan
 * (verify is its last task), then, whatever happened (a failed task, the time budget, SIGTERM),
 * the teardown plan, unless --keep-on-failure keeps a failed cluster. The CI report subscribes to
 * both runs' events beside the usual renderers. Returns the exit code.
 */
export async function runCi(options: CiOptions): Promise<number> {
  const startedAt = new Date();
  const { context, outDir } = options;
  // Before planning: the guests' cloud-init seeds carry the cluster key's public half.
  await context.ensureClusterKey();
  // The teardown plan is made again from the build's state before it runs (what the build created).
  const plans = { up: context.upPlan(), down: context.downPlan(await readState(context.clusterDir)) };
  const recorder = new RunRecorder();
  const inputsStarted = performance.now();
  await ensurePrivateDir(outDir);
  const logs = await ArtifactLogs.open(outDir);
  await writeInputs(outDir, context, plans);
  const inputsMs = performance.now() - inputsStarted;

  const stopper = new CiStopper({
    ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
    ...(options.timeoutText !== undefined ? { timeoutText: options.timeoutText } : {}),
  });
  let outcomes: PhaseOutcomes;
  try {
    outcomes = await runPhases(options, plans, stopper, [recorder, logs]);
  } finally {
    stopper.dispose();
    await logs.close();
  }
  if (outcomes.checks) await writePrivateFile(join(outDir, 'verify.json'), checksToJson(outcomes.checks));
  const written = await writeReports({
    outDir,
    knownSecrets: outcomes.knownSecrets,
    reportingMs: recorder.busyMs + logs.busyMs + inputsMs,
    ...(options.history ? { history: options.history } : {}),
    input: summaryInput({ options, plans, recorder, stopper, outcomes, startedAt }),
  });
  const code = finalExitCode(written);
  printEnding({ written, code, outDir, specWords: options.specWords, logFormat: options.logFormat });
  return code;
}

/** The build (checks and secrets read after it), then the teardown or the decision to keep. */
async function runPhases(
  options: CiOptions,
  plans: { up: Plan; down: Plan },
  stopper: CiStopper,
  [recorder, logs]: [RunRecorder, ArtifactLogs],
): Promise<PhaseOutcomes> {
  const { context, logFormat } = options;
  const flags = {
    logFormat,
    ...(options.forks !== undefined ? { forks: options.forks } : {}),
    ...(options.verbosity ? { verbosity: options.verbosity } : {}),
  };
  const outcomes: PhaseOutcomes = { knownSecrets: [], kept: false };
  try {
    outcomes.build = await buildCluster(context, plans.up, {
      ...flags,
      signal: stopper.build.signal,
      listeners: [recorder.listener('build'), logs.listener],
    });
  } catch (error) {
    outcomes.buildError = `the build could not run: ${(error as Error).message}`;
    err(`kubemix ci: ${outcomes.buildError}`);
  }
  const checks = await collectVerifyChecks(plans.up, context.clusterDir);
  if (checks) outcomes.checks = checks;
  if (checks && logFormat === 'text') printVerifyChecks(checks, context.clusterDir);
  // Read before the teardown forgets them: what the build registered as secret.
  outcomes.knownSecrets = await knownSecretValues(context.clusterDir, plans.up);

  stopper.startTeardown();
  const passed = outcomes.build?.summary.status === 'succeeded' && stopper.stoppedBy === undefined;
  if (!passed && options.keepOnFailure) {
    outcomes.kept = true;
    err(
      `kubemix ci: the build did not pass; the cluster is KEPT as asked (--keep-on-failure). Tear it down when done: kubemix down ${options.specWords.join(' ')}`,
    );
    return outcomes;
  }
  if (logFormat === 'text') out(`\nkubemix ci: tearing down ${context.spec.name}`);
  try {
    plans.down = context.downPlan(await readState(context.clusterDir));
    outcomes.teardown = await tearDownCluster(context, plans.down, {
      ...flags,
      signal: stopper.teardown.signal,
      listeners: [recorder.listener('teardown'), logs.listener],
      // A stopped teardown is finished by `down`; a stopped build needs no hint: the teardown follows.
      resumeCommand: () => `kubemix down ${options.specWords.join(' ')}`,
    });
  } catch (error) {
    outcomes.teardownError = `the teardown could not run: ${(error as Error).message}`;
    err(`kubemix ci: ${outcomes.teardownError}`);
  }
  return outcomes;
}

/** Everything the summary is made from, less what the reporting adds (scan, reporting time). */
function summaryInput(options: {
  options: CiOptions;
  plans: { up: Plan; down: Plan };
  recorder: RunRecorder;
  stopper: CiStopper;
  outcomes: PhaseOutcomes;
  startedAt: Date;
}): Omit<SummaryInput, 'secretFindings' | 'filesScanned' | 'reportingMs'> {
  const { context, timeoutText } = options.options;
  const { plans, outcomes, stopper } = options;
  const { build, teardown, buildError, teardownError, kept } = outcomes;
  const stoppedBy = stopper.stoppedBy;
  const verifyTask = plans.up.tasks.find((t) => t.name === 'verify');
  return {
    cluster: context.spec.name,
    spec: context.source,
    startedAt: options.startedAt,
    finishedAt: new Date(),
    recorder: options.recorder,
    runs: [
      {
        kind: 'build',
        plan: plans.up,
        phases: buildPhases(plans.up),
        ...(build ? { summary: build.summary } : {}),
        notRunReason: notRunReason(build, buildError, stoppedBy),
        ...(stoppedBy ? { stoppedBy } : {}),
      },
      {
        kind: 'teardown',
        plan: plans.down,
        phases: new Map(plans.down.tasks.map((t) => [t.name, 'teardown'])),
        ...(teardown ? { summary: teardown.summary } : {}),
        notRunReason: kept
          ? 'not run: the cluster was kept (--keep-on-failure)'
          : (teardownError ?? 'not run: the teardown stopped before it'),
        ...(stopper.teardown.signal.aborted ? { stoppedBy: 'interrupted' as const } : {}),
      },
    ],
    verify: {
      ...(verifyTask ? { task: verifyTask } : {}),
      ...(outcomes.checks ? { results: outcomes.checks } : {}),
    },
    build: {
      ...(stoppedBy ? { stoppedBy } : {}),
      ...(buildError ? { error: buildError } : {}),
      ...(timeoutText ? { timeoutText } : {}),
    },
    teardown: {
      kept,
      ...(teardown ? { summary: teardown.summary } : {}),
      ...(teardownError ? { error: teardownError } : {}),
    },
    versions: versionsUsed(context),
    hosts: plans.up.hosts,
  };
}

function notRunReason(
  build: PlanRunOutcome | undefined,
  buildError: string | undefined,
  stoppedBy: 'interrupted' | 'timed-out' | undefined,
): string {
  if (stoppedBy === 'timed-out') return 'not run: the time budget ran out';
  if (stoppedBy === 'interrupted') return 'not run: kubemix ci was interrupted';
  if (buildError) return `not run: ${buildError}`;
  if (build?.summary.failedTask) return `not run: the build stopped after ${build.summary.failedTask} failed`;
  return 'not run';
}
