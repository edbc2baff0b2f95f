import type { RunSummary } from '../engine/types.js';
import { EXIT } from '../errors/index.js';
import type { InventoryHost } from '../types/inventory.js';
import type { PlanTask } from '../types/plan.js';
import { CHECK_NAMES, CHECK_OUTPUT_PREFIX, type CheckResult } from '../verify/checks.js';
import { type RunRecorder, stepKey } from './run-recorder.js';
import {
  type CheckSummary,
  type CiOutcome,
  type CiSummary,
  PHASES,
  type Phase,
  type SecretFinding,
  SUMMARY_FORMAT,
  type TaskResult,
  type UnitStatus,
} from './summary-types.js';
import { type RunInput, taskResults } from './task-results.js';

/** Exit codes of `kubemix ci`: its rows of the one table (EXIT_CODES). */
export const CI_EXIT = {
  passed: EXIT.ok,
  failed: EXIT.failed,
  badInput: EXIT.badInput,
  timedOut: EXIT.timedOut,
  teardownFailed: EXIT.leftBehind,
  interrupted: EXIT.interrupted,
} as const;

/** Everything a CI run knows at its end, to summarise. */
export interface SummaryInput {
  cluster: string;
  spec: string;
  startedAt: Date;
  finishedAt: Date;
  /** The build run, then the teardown run when it happened. */
  runs: RunInput[];
  recorder: RunRecorder;
  /** The plan's verify task, and the checks it produced (undefined: none). */
  verify: { task?: PlanTask; results?: CheckResult[] };
  build: { stoppedBy?: 'interrupted' | 'timed-out'; error?: string; timeoutText?: string };
  teardown: { kept: boolean; summary?: RunSummary; error?: string };
  secretFindings: SecretFinding[];
  filesScanned: number;
  versions: Record<string, string>;
  hosts: InventoryHost[];
  reportingMs: number;
}

/** The run's summary: per task and host, checks, teardown, outcome and exit code. Pure. */
export function buildSummary(input: SummaryInput): CiSummary {
  const origin = input.startedAt.getTime();
  const { tasks, criticalPath } = taskResults({ runs: input.runs, recorder: input.recorder, origin });
  const checks = checkSummaries(input, tasks);
  const teardown = teardownResult(input);
  const failures = tasks.flatMap((t) => t.hosts.flatMap((h) => (h.failure ? [h.failure] : [])));
  const { outcome, exitCode, message } = decideOutcome(input, tasks, checks, teardown);
  const pathTasks = tasks.filter((t) => criticalPath.includes(t.name));
  return {
    format: SUMMARY_FORMAT,
    cluster: input.cluster,
    spec: input.spec,
    startedAt: input.startedAt.toISOString(),
    finishedAt: input.finishedAt.toISOString(),
    durationMs: input.finishedAt.getTime() - origin,
    outcome,
    exitCode,
    ...(message !== undefined ? { message } : {}),
    phases: phaseSummaries(tasks, checks),
    tasks,
    failures,
    criticalPath: { tasks: criticalPath, durationMs: pathTasks.reduce((sum, t) => sum + t.durationMs, 0) },
    verify: { ran: input.verify.results !== undefined || verifyStarted(tasks), checks },
    teardown,
    secretScan: { filesScanned: input.filesScanned, findings: input.secretFindings },
    versions: input.versions,
    hosts: input.hosts.map((h) => ({
      name: h.name,
      os: h.os,
      role: h.role,
      ...(h.windowsVersion ? { windowsVersion: h.windowsVersion } : {}),
    })),
    timings: { reportingMs: Math.round(input.reportingMs) },
  };
}

const verifyStarted = (tasks: TaskResult[]) =>
  tasks.some((t) => t.phase === 'verify' && t.startMs !== undefined);

/** Every check verify.yml runs (and any other it reported), with its step's time. */
function checkSummaries(input: SummaryInput, tasks: TaskResult[]): CheckSummary[] {
  const results = input.verify.results ?? [];
  const host = input.verify.task?.hosts[0];
  const stepOf = (check: string) =>
    input.verify.task?.steps.find(
      (s) => s.register === `${CHECK_OUTPUT_PREFIX}${check.replaceAll('-', '_')}`,
    );
  const durationOf = (check: string) => {
    const step = stepOf(check);
    if (!step || !host) return 0;
    return input.recorder.stepDurations.get(stepKey(input.verify.task!.name, host, step.name)) ?? 0;
  };
  const started = verifyStarted(tasks);
  const names = [
    ...CHECK_NAMES,
    ...results.map((r) => r.check).filter((c) => !CHECK_NAMES.includes(c as never)),
  ];
  return names.map((check): CheckSummary => {
    const result = results.find((r) => r.check === check);
    if (result)
      return {
        check,
        status: result.ok ? 'passed' : 'failed',
        detail: result.detail,
        command: result.command,
        durationMs: durationOf(check),
      };
    return {
      check,
      status: started ? 'failed' : 'skipped',
      detail: started ? 'no result: verify stopped before this check' : 'not run: verify did not run',
      command: '',
      durationMs: 0,
    };
  });
}

function teardownResult(input: SummaryInput): CiSummary['teardown'] {
  const { kept, summary, error } = input.teardown;
  if (kept)
    return {
      status: 'kept',
      message: 'not run: the cluster was kept as asked (--keep-on-failure); run kubemix down when done',
    };
  if (error !== undefined) return { status: 'failed', message: error };
  if (!summary) return { status: 'failed', message: 'the teardown did not run' };
  if (summary.status === 'succeeded') return { status: 'passed', message: 'every teardown task is done' };
  if (summary.status === 'interrupted')
    return { status: 'interrupted', message: 'the teardown was interrupted: resources may be left behind' };
  const failed = summary.failures[0];
  const where = failed ? `${failed.task} failed on ${failed.host} (step "${failed.step}")` : summary.error;
  return { status: 'failed', message: `${where ?? 'teardown failed'}: resources may be left behind` };
}

/** The outcome, in the order that matters to whoever pays for leftovers: teardown first. */
function decideOutcome(
  input: SummaryInput,
  tasks: TaskResult[],
  checks: CheckSummary[],
  teardown: CiSummary['teardown'],
): { outcome: CiOutcome; exitCode: number; message?: string } {
  if (teardown.status === 'failed' || teardown.status === 'interrupted')
    return {
      outcome: 'teardown-failed',
      exitCode: CI_EXIT.teardownFailed,
      message: `teardown failed: ${teardown.message}`,
    };
  const firstFailure = tasks.flatMap((t) => t.hosts).find((h) => h.failure)?.failure;
  if (input.build.stoppedBy === 'interrupted')
    return { outcome: 'interrupted', exitCode: CI_EXIT.interrupted, message: 'interrupted (SIGINT/SIGTERM)' };
  if (input.build.stoppedBy === 'timed-out')
    return {
      outcome: 'timed-out',
      exitCode: CI_EXIT.timedOut,
      message: `timed out after ${input.build.timeoutText ?? 'the time budget'}${firstFailure ? ` during ${firstFailure.task}` : ''}`,
    };
  if (input.build.error !== undefined)
    return { outcome: 'failed', exitCode: CI_EXIT.failed, message: input.build.error };
  if (firstFailure) return { outcome: 'failed', exitCode: CI_EXIT.failed, message: firstFailure.message };
  const failedCheck = checks.find((c) => c.status === 'failed');
  if (failedCheck)
    return {
      outcome: 'failed',
      exitCode: CI_EXIT.failed,
      message: `verify check ${failedCheck.check} failed: ${failedCheck.detail}`,
    };
  const notRun = tasks.find((t) => t.phase !== 'teardown' && t.status !== 'passed');
  if (notRun)
    return {
      outcome: 'failed',
      exitCode: CI_EXIT.failed,
      message: `${notRun.name} did not run: ${notRun.reason}`,
    };
  if (input.secretFindings.length > 0)
    return {
      outcome: 'failed',
      exitCode: CI_EXIT.failed,
      message: `the secret scan found ${input.secretFindings.length} secret(s) in the artifacts (redacted)`,
    };
  return { outcome: 'passed', exitCode: CI_EXIT.passed };
}

/** Each phase's status and span, from its tasks (and, for verify, its checks). */
function phaseSummaries(tasks: TaskResult[], checks: CheckSummary[]): CiSummary['phases'] {
  const entries = PHASES.map((phase: Phase) => {
    const mine = tasks.filter((t) => t.phase === phase);
    const statuses: UnitStatus[] = [
      ...mine.flatMap((t) => t.hosts.map((h) => h.status)),
      ...(phase === 'verify' ? checks.map((c) => c.status) : []),
    ];
    const status: UnitStatus = statuses.includes('failed')
      ? 'failed'
      : statuses.includes('error')
        ? 'error'
        : statuses.length === 0 || statuses.every((s) => s === 'skipped')
          ? 'skipped'
          : 'passed';
    const starts = mine.flatMap((t) => (t.startMs !== undefined ? [t.startMs] : []));
    const ends = mine.flatMap((t) => (t.endMs !== undefined ? [t.endMs] : []));
    const startMs = starts.length > 0 ? Math.min(...starts) : undefined;
    const endMs = ends.length > 0 ? Math.max(...ends) : undefined;
    return [
      phase,
      {
        status,
        durationMs: startMs !== undefined && endMs !== undefined ? endMs - startMs : 0,
        ...(startMs !== undefined ? { startMs } : {}),
        ...(endMs !== undefined ? { endMs } : {}),
      },
    ] as const;
  });
  return Object.fromEntries(entries) as CiSummary['phases'];
}
