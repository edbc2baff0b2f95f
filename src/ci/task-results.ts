import type { RunSummary, StepFailure } from '../engine/types.js';
import type { Plan, PlanTask } from '../types/plan.js';
import type { RecordedHost, RecordedTask, RunKind, RunRecorder } from './run-recorder.js';
import type { FailureExcerpt, HostResult, Phase, TaskResult, UnitStatus } from './summary-types.js';
import { observedCriticalPath, readyTimes, type TimedTask } from './timeline.js';

/** How one engine run of `kubemix ci` went, as the task results need it. */
export interface RunInput {
  kind: RunKind;
  plan: Plan;
  phases: Map<string, Phase>;
  /** The engine's summary; undefined when the run did not happen or threw. */
  summary?: RunSummary;
  /** Why tasks that never started did not (the build failed, timed out, teardown kept...). */
  notRunReason: string;
  /** Set when kubemix ci stopped this run: how its interrupted tasks are reported. */
  stoppedBy?: 'interrupted' | 'timed-out';
}

const SKIP_REASONS: Record<string, string> = {
  'already-done': 'done in an earlier run',
  'stop-before': 'stopped before it',
  'stop-after': 'not asked for',
  'dependency-failed': 'a task it needs failed',
  'no-hosts': 'no hosts to run on',
};

/**
 * Every task of both runs with every one of its hosts, as JUnit and the report list them: the
 * engine's summary decides failures (ignored failures are not failures), the recorded events give
 * the times, retries and output. Tasks that never ran are there too, skipped with the reason.
 */
export function taskResults(options: {
  runs: RunInput[];
  recorder: RunRecorder;
  /** Epoch ms the CI run started: every time is relative to it. */
  origin: number;
}): { tasks: TaskResult[]; criticalPath: string[] } {
  const { recorder, origin } = options;
  const rel = (at: number | undefined) => (at === undefined ? undefined : at - origin);
  const tasks: TaskResult[] = [];
  const timed: TimedTask[] = [];
  const runStarts: number[] = [];
  options.runs.forEach((run, index) => {
    runStarts[index] = rel(recorder.runs[run.kind]?.startedAt) ?? 0;
    for (const planTask of run.plan.tasks) {
      const recorded = recorder.tasks.get(planTask.name);
      const result = taskResult(run, planTask, recorded, rel);
      tasks.push(result);
      timed.push({
        name: result.name,
        needs: result.needs,
        run: index,
        ...(result.startMs !== undefined ? { startMs: result.startMs } : {}),
        ...(result.endMs !== undefined ? { endMs: result.endMs } : {}),
      });
    }
  });
  const ready = readyTimes(timed, runStarts);
  const path = observedCriticalPath(timed);
  for (const task of tasks) {
    task.onCriticalPath = path.includes(task.name);
    if (task.startMs === undefined) continue;
    task.readyMs = ready.get(task.name) ?? task.startMs;
    task.waitMs = Math.max(0, task.startMs - task.readyMs);
  }
  return { tasks, criticalPath: path };
}

function taskResult(
  run: RunInput,
  planTask: PlanTask,
  recorded: RecordedTask | undefined,
  rel: (at: number | undefined) => number | undefined,
): TaskResult {
  const phase = run.phases.get(planTask.name) ?? 'build';
  const startMs = rel(recorded?.startedAt);
  const endMs = rel(recorded?.finishedAt);
  const engineTask = run.summary?.tasks[planTask.name];
  const base = {
    name: planTask.name,
    phase,
    needs: planTask.needs,
    durationMs: startMs !== undefined && endMs !== undefined ? endMs - startMs : 0,
    waitMs: 0,
    onCriticalPath: false,
    ...(startMs !== undefined ? { startMs } : {}),
    ...(endMs !== undefined ? { endMs } : {}),
  };
  const skipped = recorded?.skipped;
  // Nothing to do is done: not a reason to fail the run.
  if (skipped === 'no-hosts')
    return { ...base, status: 'passed', reason: SKIP_REASONS['no-hosts']!, retried: false, hosts: [] };
  if (skipped !== undefined || startMs === undefined) {
    const reason = skipped !== undefined ? (SKIP_REASONS[skipped] ?? skipped) : run.notRunReason;
    const hosts = planTask.hosts.map(
      (host): HostResult => ({ host, status: 'skipped', reason, durationMs: 0, retried: false }),
    );
    return { ...base, status: 'skipped', reason, retried: false, hosts };
  }
  const interrupted = engineTask?.reason === 'interrupted' || (endMs === undefined && run.stoppedBy);
  const failures = run.summary?.failures.filter((f) => f.task === planTask.name) ?? [];
  const hosts = planTask.hosts.map((host, index) => {
    const recordedHost = recorded?.hosts.get(host);
    return hostResult({
      run,
      phase,
      task: planTask.name,
      host,
      recorded: recordedHost,
      failure: failures.find((f) => f.host === host),
      // A host that had run its last step when the run was stopped finished its part.
      interrupted: Boolean(interrupted) && !finishedItsSteps(run.plan, planTask, index, recordedHost),
      rel,
      taskStartMs: startMs,
      taskEndMs: endMs,
    });
  });
  if (recorded?.status === 'failed' && !hosts.some((h) => h.status === 'failed' || h.status === 'error')) {
    // The task failed as a whole (not implemented yet, for one): every host carries its message.
    const message = recorded.error ?? `${planTask.name} failed`;
    for (const host of hosts) {
      host.status = 'failed';
      host.failure = {
        phase,
        task: planTask.name,
        host: host.host,
        step: '(task)',
        command: '',
        exitCode: null,
        kind: 'failed',
        message,
        outputTail: '',
      };
    }
  }
  const status: UnitStatus = hosts.some((h) => h.status === 'failed')
    ? 'failed'
    : hosts.some((h) => h.status === 'error') || recorded?.status === 'failed'
      ? 'error'
      : 'passed';
  return {
    ...base,
    status,
    ...(recorded?.error && status !== 'passed' ? { reason: recorded.error } : {}),
    retried: hosts.some((h) => h.retried),
    hosts,
  };
}

function hostResult(options: {
  run: RunInput;
  phase: Phase;
  task: string;
  host: string;
  recorded: RecordedHost | undefined;
  failure: StepFailure | undefined;
  interrupted: boolean;
  rel: (at: number | undefined) => number | undefined;
  taskStartMs: number | undefined;
  taskEndMs: number | undefined;
}): HostResult {
  const { recorded, failure, rel } = options;
  // A host of a started task that ran no step (a task with nothing to do there, such as the static
  // provider's prepare-provider since credentials are checked when the plan is made) was done when
  // the task started: it takes no time, at the task's start, rather than no place in the timeline.
  const nothingRan = recorded?.startedAt === undefined && !failure && !options.interrupted;
  const startMs = rel(recorded?.startedAt) ?? (nothingRan ? options.taskStartMs : undefined);
  const endMs = rel(recorded?.finishedAt) ?? (nothingRan ? options.taskStartMs : options.taskEndMs);
  const timing = {
    ...(startMs !== undefined ? { startMs } : {}),
    ...(endMs !== undefined ? { endMs } : {}),
    durationMs: startMs !== undefined && endMs !== undefined ? Math.max(0, endMs - startMs) : 0,
  };
  const retried = Boolean(recorded?.retried);
  if (failure) {
    return {
      host: options.host,
      status: 'failed',
      ...timing,
      retried: false,
      failure: failureExcerpt(options.phase, failure, recorded),
    };
  }
  if (options.interrupted) {
    const kind = options.run.stoppedBy ?? 'interrupted';
    const step = recorded?.failure;
    const why =
      kind === 'timed-out' ? 'stopped: the time budget ran out' : 'stopped: kubemix ci was interrupted';
    return {
      host: options.host,
      status: 'error',
      reason: why,
      ...timing,
      retried,
      failure: {
        phase: options.phase,
        task: options.task,
        host: options.host,
        step: step?.step ?? '(between steps)',
        command: step?.result.command ?? '',
        exitCode: step?.result.exitCode ?? null,
        kind,
        message: why,
        outputTail: step?.outputTail ?? '',
      },
    };
  }
  return { host: options.host, status: 'passed', ...timing, retried };
}

/**
 * True when a host's last ended step is the last one the task has for it (steps for its OS;
 * run-once steps only on the first host), and it did not fail.
 */
function finishedItsSteps(
  plan: Plan,
  task: PlanTask,
  hostIndex: number,
  recorded: RecordedHost | undefined,
): boolean {
  const last = recorded?.lastStep;
  if (!last || last.status === 'failed') return false;
  const os = plan.hosts.find((h) => h.name === task.hosts[hostIndex])?.os ?? 'linux';
  const mine = task.steps.filter(
    (s) => (s.os === undefined || s.os === os) && (!s.runOnce || hostIndex === 0),
  );
  return mine.at(-1)?.name === last.step;
}

/** The engine's account of a failed step, with the output the events carried. */
function failureExcerpt(
  phase: Phase,
  failure: StepFailure,
  recorded: RecordedHost | undefined,
): FailureExcerpt {
  const unreachable = recorded?.unreachable !== undefined && failure.step === '(connect)';
  const result = recorded?.failure?.step === failure.step ? recorded.failure : undefined;
  const how = unreachable
    ? `host unreachable: ${recorded?.unreachable}`
    : result?.result.timedOut
      ? 'timed out'
      : failure.exitCode !== null
        ? `exit code ${failure.exitCode}`
        : failure.stderrTail.split('\n')[0] || 'failed';
  return {
    phase,
    task: failure.task,
    host: failure.host,
    step: failure.step,
    command: failure.command,
    exitCode: failure.exitCode,
    kind: unreachable ? 'unreachable' : 'failed',
    message: `${failure.task} failed on ${failure.host}: step "${failure.step}": ${how}`,
    outputTail: result?.outputTail || failure.stderrTail,
  };
}
