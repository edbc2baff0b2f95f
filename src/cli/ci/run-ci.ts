import { join } from 'node:path';
import { ArtifactLogs } from '../../ci/artifact-logs.js';
import { RunRecorder } from '../../ci/run-recorder.js';
import { buildPhases } from '../../ci/timeline.js';
import { finalExitCode, writeReports } from '../../ci/write-reports.js';
import { ensurePrivateDir, writePrivateFile } from '../../engine/index.js';
import { checksToJson } from '../../verify/checks.js';
import type { ClusterContext } from '../cluster-context.js';
import { tearDownCluster } from '../commands/down.js';
import { buildCluster } from '../commands/up.js';
import { err, out } from '../output.js';
import type { PlanRunOutcome } from '../run-plan-command.js';
import { collectVerifyChecks, printVerifyChecks } from '../verify-report.js';
import { knownSecretValues, versionsUsed, writeInputs } from './inputs.js';
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
}

/**
 * up -> verify -> down in one run, through the same code paths as those commands: the build plan
 * (verify is its last task), then, whatever happened (a failed task, the time budget, SIGTERM),
 * the teardown plan, unless --keep-on-failure keeps a failed cluster. The CI report subscribes to
 * both runs' events beside the usual renderers. Returns the exit code.
 */
export async function runCi(options: CiOptions): Promise<number> {
  const startedAt = new Date();
  const { context, outDir, logFormat } = options;
  const plans = { up: context.upPlan(), down: context.downPlan() };
  const recorder = new RunRecorder();
  let inputsMs = performance.now();
  await ensurePrivateDir(outDir);
  const logs = await ArtifactLogs.open(outDir);
  await writeInputs(outDir, context, plans);
  inputsMs = performance.now() - inputsMs;
  const runFlags = { logFormat, ...(options.forks !== undefined ? { forks: options.forks } : {}) };

  const stopper = new CiStopper({
    ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
    ...(options.timeoutText !== undefined ? { timeoutText: options.timeoutText } : {}),
  });
  let build: PlanRunOutcome | undefined;
  let buildError: string | undefined;
  let teardown: PlanRunOutcome | undefined;
  let teardownError: string | undefined;
  let kept = false;
  let knownSecrets: string[] = [];
  let checks: Awaited<ReturnType<typeof collectVerifyChecks>>;
  try {
    try {
      build = await buildCluster(context, plans.up, {
        ...runFlags,
        signal: stopper.build.signal,
        listeners: [recorder.listener('build'), logs.listener],
      });
    } catch (error) {
      buildError = `the build could not run: ${(error as Error).message}`;
      err(`kubemix ci: ${buildError}`);
    }
    checks = await collectVerifyChecks(plans.up, context.clusterDir);
    if (checks && logFormat === 'text') printVerifyChecks(checks, context.clusterDir);
    // Read before the teardown forgets them: what the build registered as secret.
    knownSecrets = await knownSecretValues(context.clusterDir, plans.up);

    stopper.startTeardown();
    const passed = build?.summary.status === 'succeeded' && stopper.stoppedBy === undefined;
    if (!passed && options.keepOnFailure) {
      kept = true;
      err(
        `kubemix ci: the build did not pass; the cluster is KEPT as asked (--keep-on-failure). Tear it down when done: kubemix down ${options.specWords.join(' ')}`,
      );
    } else {
      if (logFormat === 'text') out(`\nkubemix ci: tearing down ${context.spec.name}`);
      try {
        teardown = await tearDownCluster(context, plans.down, {
          ...runFlags,
          signal: stopper.teardown.signal,
          listeners: [recorder.listener('teardown'), logs.listener],
        });
      } catch (error) {
        teardownError = `the teardown could not run: ${(error as Error).message}`;
        err(`kubemix ci: ${teardownError}`);
      }
    }
  } finally {
    stopper.dispose();
    await logs.close();
  }

  if (checks) await writePrivateFile(join(outDir, 'verify.json'), checksToJson(checks));
  const stoppedBy = stopper.stoppedBy;
  const verifyTask = plans.up.tasks.find((t) => t.name === 'verify');
  const written = await writeReports({
    outDir,
    knownSecrets,
    reportingMs: recorder.busyMs + logs.busyMs + inputsMs,
    ...(options.history ? { history: options.history } : {}),
    input: {
      cluster: context.spec.name,
      spec: context.source,
      startedAt,
      finishedAt: new Date(),
      recorder,
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
        ...(checks ? { results: checks } : {}),
      },
      build: {
        ...(stoppedBy ? { stoppedBy } : {}),
        ...(buildError ? { error: buildError } : {}),
        ...(options.timeoutText ? { timeoutText: options.timeoutText } : {}),
      },
      teardown: {
        kept,
        ...(teardown ? { summary: teardown.summary } : {}),
        ...(teardownError ? { error: teardownError } : {}),
      },
      versions: versionsUsed(context),
      hosts: plans.up.hosts,
    },
  });
  const code = finalExitCode(written);
  printEnding({ written, code, outDir, specWords: options.specWords, logFormat });
  return code;
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
