import type { CommandResult } from '../types/command-result.js';
import type { StepStatus } from '../types/events.js';
import type { SingleRun, TaskOutcome } from './execute-task-types.js';
import type { Task } from './types.js';

/** A run's parts as {@link toOutcome} takes them (facts optional, attempts counted). */
export type FinishedRun = Omit<SingleRun, 'facts'> & { facts?: Record<string, unknown>; attempts: number };

/** The result events show for a module that ran no command (set_fact, debug, assert...): its message. */
export function summary(task: Task, host: string, registered: Record<string, unknown>): CommandResult {
  const failed = registered['failed'] === true;
  const msg = typeof registered['msg'] === 'string' ? registered['msg'] : '';
  return {
    command: task.module,
    exitCode: failed ? 1 : 0,
    stdout: failed ? '' : msg,
    stderr: failed ? msg : '',
    durationMs: 0,
    failed,
    timedOut: false,
    host,
  };
}

/** A run that failed before the module ran any command. */
export function failure(msg: string): SingleRun {
  return {
    registered: { changed: false, failed: true, msg },
    results: [],
    facts: {},
    unreachable: false,
    rebootRequired: false,
  };
}

/** The same, with no attempt made: a failed condition or loop before anything ran. */
export function failedBeforeRun(msg: string): FinishedRun {
  return {
    registered: { changed: false, failed: true, msg },
    results: [],
    unreachable: false,
    rebootRequired: false,
    attempts: 0,
  };
}

/** Reads status, changed, failed, skipped and ignored off what the task registered. */
export function toOutcome(task: Task, hostName: string, run: FinishedRun): TaskOutcome {
  const r = run.registered;
  const skipped = r['skipped'] === true;
  const failed = r['failed'] === true;
  const changed = r['changed'] === true;
  const ignored = failed && !run.unreachable && task.ignoreErrors === true;
  const status: StepStatus = run.unreachable
    ? 'unreachable'
    : failed
      ? 'failed'
      : skipped
        ? 'skipped'
        : changed
          ? 'changed'
          : 'ok';
  const outcome: TaskOutcome = {
    status,
    changed,
    failed,
    skipped,
    unreachable: run.unreachable,
    ignored,
    registered: r,
    facts: run.facts ?? {},
    notify: changed && !failed,
    rebootRequired: run.rebootRequired,
    results: run.results,
    lastResult: run.results.at(-1) ?? summary(task, hostName, r),
    attempts: run.attempts,
  };
  if (typeof r['msg'] === 'string') outcome.msg = r['msg'];
  return outcome;
}
