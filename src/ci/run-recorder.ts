import { tailLines } from '../engine/failure.js';
import type { CommandResult } from '../types/command-result.js';
import type { RunEvent, RunEventListener, RunStatus, StepStatus } from '../types/events.js';

/** Which of `kubemix ci`'s two engine runs an event came from. */
export type RunKind = 'build' | 'teardown';

/** The failed step of a host, as its step-end event showed it (redacted by the engine). */
export interface RecordedFailure {
  step: string;
  result: CommandResult;
  /** Last lines of what the step printed while it ran. */
  outputTail: string;
}

/** What happened to one task on one host. Times are epoch milliseconds. */
export interface RecordedHost {
  startedAt?: number;
  finishedAt?: number;
  /** A step failed and a retry of it passed. */
  retried: boolean;
  /** The last step that ended, and how. */
  lastStep?: { step: string; status: StepStatus };
  /** The last failed step, unless a later step ran (then it was ignored). */
  failure?: RecordedFailure;
  unreachable?: string;
}

/** What happened to one task in one run. */
export interface RecordedTask {
  run: RunKind;
  startedAt?: number;
  finishedAt?: number;
  status?: 'done' | 'failed';
  error?: string;
  skipped?: string;
  hosts: Map<string, RecordedHost>;
}

/** One engine run. */
export interface RecordedRun {
  startedAt?: number;
  finishedAt?: number;
  status?: RunStatus;
  message?: string;
}

/** How many output lines a host keeps per step for failure excerpts. */
const OUTPUT_TAIL_LINES = 10;

/**
 * A subscriber of the engine's RunEvents (like the task list and the JSON-lines log) that keeps
 * what the CI report needs: when each task ran on each host, retries, failed steps with their
 * output. Pure bookkeeping; it prints and writes nothing.
 */
export class RunRecorder {
  readonly tasks = new Map<string, RecordedTask>();
  readonly runs: Partial<Record<RunKind, RecordedRun>> = {};
  /** How long each step took on each host (its attempts and the waits between them), by {@link stepKey}. */
  readonly stepDurations = new Map<string, number>();
  /** Time spent in this recorder's listener, for the reporting budget. */
  busyMs = 0;
  private readonly output = new Map<string, string[]>();

  /** The listener for one run's events. */
  listener(run: RunKind): RunEventListener {
    return (event) => {
      const started = performance.now();
      this.record(run, event);
      this.busyMs += performance.now() - started;
    };
  }

  private task(run: RunKind, name: string): RecordedTask {
    let task = this.tasks.get(name);
    if (!task) {
      task = { run, hosts: new Map() };
      this.tasks.set(name, task);
    }
    return task;
  }

  private host(run: RunKind, task: string, host: string): RecordedHost {
    const record = this.task(run, task);
    let entry = record.hosts.get(host);
    if (!entry) {
      entry = { retried: false };
      record.hosts.set(host, entry);
    }
    return entry;
  }

  private record(run: RunKind, event: RunEvent): void {
    const at = Date.parse(event.time);
    switch (event.type) {
      case 'run-start':
        this.runs[run] = { startedAt: at };
        return;
      case 'run-end': {
        const record = this.runs[run] ?? {};
        this.runs[run] = record;
        record.finishedAt = at;
        record.status = event.status;
        if (event.message !== undefined) record.message = event.message;
        return;
      }
      case 'task-start': {
        const task = this.task(run, event.task);
        task.startedAt = at;
        for (const host of event.hosts) this.host(run, event.task, host);
        return;
      }
      case 'task-skip':
        this.task(run, event.task).skipped = event.reason;
        return;
      case 'task-end': {
        const task = this.task(run, event.task);
        task.finishedAt = at;
        task.status = event.status;
        if (event.error !== undefined) task.error = event.error;
        return;
      }
      case 'step-start': {
        const host = this.host(run, event.task, event.host);
        host.startedAt ??= at;
        // A step after a failed one: that failure was ignored (ignore_errors).
        if (host.failure) delete host.failure;
        this.output.set(`${event.task}\u0000${event.host}`, []);
        return;
      }
      case 'step-output': {
        const key = `${event.task}\u0000${event.host}`;
        const lines = this.output.get(key) ?? [];
        lines.push(...event.data.split('\n').filter((line) => line.trim() !== ''));
        if (lines.length > OUTPUT_TAIL_LINES) lines.splice(0, lines.length - OUTPUT_TAIL_LINES);
        this.output.set(key, lines);
        return;
      }
      case 'step-retry':
        this.host(run, event.task, event.host).retried = true;
        // The next attempt starts: a failure shows the output of the attempt that failed last.
        this.output.set(`${event.task}\u0000${event.host}`, []);
        return;
      case 'step-end': {
        const host = this.host(run, event.task, event.host);
        host.finishedAt = at;
        host.lastStep = { step: event.step, status: event.status };
        this.stepDurations.set(stepKey(event.task, event.host, event.step), event.result.durationMs);
        if (event.status !== 'failed') return;
        const streamed = this.output.get(`${event.task}\u0000${event.host}`) ?? [];
        host.failure = {
          step: event.step,
          result: event.result,
          outputTail: streamed.length > 0 ? streamed.join('\n') : resultTail(event.result),
        };
        return;
      }
      case 'host-unreachable': {
        const host = this.host(run, event.task, event.host);
        host.startedAt ??= at;
        host.finishedAt = at;
        host.unreachable = event.message;
        return;
      }
    }
  }
}

/** Key of {@link RunRecorder.stepDurations}. */
export const stepKey = (task: string, host: string, step: string) => `${task}\u0000${host}\u0000${step}`;

/** The last lines of a result's stderr and stdout, when the step streamed nothing. */
function resultTail(result: CommandResult): string {
  return [tailLines(result.stderr, OUTPUT_TAIL_LINES), tailLines(result.stdout, OUTPUT_TAIL_LINES)]
    .filter(Boolean)
    .join('\n');
}
