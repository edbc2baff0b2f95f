import type { CommandResult } from './command-result.js';
import type { ConnectionReport } from './transport.js';

/** How a run ended. */
export type RunStatus = 'succeeded' | 'failed' | 'stopped' | 'interrupted';

/** State of a task as the engine sees it. */
export type TaskStatus = 'pending' | 'running' | 'done' | 'failed' | 'skipped';

/** Outcome of one step on one host. */
export type StepStatus = 'ok' | 'changed' | 'failed' | 'skipped' | 'unreachable';

interface EventBase {
  /** ISO time the engine emitted the event. */
  time: string;
}

/**
 * Everything the engine reports. Renderers (listr2, plain lines, JSON lines, CI report)
 * subscribe to these; the engine itself never prints.
 */
export type RunEvent =
  | (EventBase & { type: 'run-start'; cluster: string; tasks: string[]; resumedFrom?: string[] })
  | (EventBase & { type: 'task-start'; task: string; hosts: string[] })
  | (EventBase & {
      type: 'task-skip';
      task: string;
      reason: 'already-done' | 'stop-before' | 'stop-after' | 'dependency-failed' | 'no-hosts';
    })
  /** A step starts on a host; its attempts follow as step-retry events (`attempt` is always 1). */
  | (EventBase & { type: 'step-start'; task: string; host: string; step: string; attempt: number })
  | (EventBase & {
      type: 'step-output';
      task: string;
      host: string;
      step: string;
      stream: 'stdout' | 'stderr';
      data: string;
    })
  | (EventBase & {
      /**
       * What a long step sees while it waits (e.g. a Windows guest installing: domain state,
       * reboots seen, time used of the time allowed). Sent when it changes, never secret.
       */
      type: 'step-progress';
      task: string;
      host: string;
      step: string;
      message: string;
    })
  | (EventBase & {
      /**
       * An attempt failed and another follows after `delayMs` (retries/until, in `up` and `run`):
       * `attempt` is the attempt that failed (1-based), `result` its last command.
       */
      type: 'step-retry';
      task: string;
      host: string;
      step: string;
      attempt: number;
      delayMs: number;
      result: CommandResult;
    })
  | (EventBase & {
      type: 'step-end';
      task: string;
      host: string;
      step: string;
      status: StepStatus;
      result: CommandResult;
    })
  | (EventBase & { type: 'host-unreachable'; task: string; host: string; message: string })
  /**
   * A host's SSH or WinRM connection opened, was reused by a task, closed, or could not be opened,
   * with where and how it connects (never a secret: see ConnectionDetail). Shown by -vvv.
   */
  | (EventBase & { type: 'connection' } & ConnectionReport)
  | (EventBase & {
      type: 'task-end';
      task: string;
      status: Extract<TaskStatus, 'done' | 'failed'>;
      error?: string;
      durationMs: number;
    })
  | (EventBase & {
      type: 'run-end';
      status: RunStatus;
      durationMs: number;
      failedTask?: string;
      message?: string;
    });

export type RunEventType = RunEvent['type'];

/** A subscriber to run events. */
export type RunEventListener = (event: RunEvent) => void;
