import { constants } from 'node:os';
import type { CommandResult } from '../../types/command-result.js';
import type { StopState } from './command-stopper.js';
import type { FramedOutcome } from './frame-reader.js';

/** How a command ended besides its own exit: stopped by kubemix, or its connection lost (the message). */
export interface EndState extends StopState {
  lost?: string;
}

/**
 * The CommandResult of a framed command. A killed or lost command has no exit code; the reason
 * is appended to stderr as one line naming the host.
 */
export function framedResult(
  host: string,
  display: string,
  outcome: FramedOutcome,
  started: number,
  state: EndState,
): CommandResult {
  const stopped = state.timedOut || state.cancelled;
  const result: CommandResult = {
    command: display,
    exitCode: stopped || state.lost ? null : outcome.exitCode,
    stdout: outcome.stdout.toString('utf8'),
    stderr: outcome.stderr.toString('utf8'),
    durationMs: Date.now() - started,
    failed: false,
    timedOut: state.timedOut,
    host,
  };
  const note = (line: string) => {
    result.stderr += `${result.stderr && !result.stderr.endsWith('\n') ? '\n' : ''}${line}`;
  };
  if (stopped) {
    const signal = signalName(outcome.exitCode);
    if (signal) result.signal = signal;
    note(
      state.timedOut
        ? `${host}: timed out after ${Date.now() - started} ms; the command was killed`
        : `${host}: cancelled; the command was killed`,
    );
  }
  if (state.lost) note(state.lost);
  result.failed = stopped || state.lost !== undefined || result.exitCode !== 0;
  return result;
}

/** The signal a shell's exit status above 128 stands for (128 + signal number). */
function signalName(status: number | null): string | undefined {
  if (status === null || status <= 128) return undefined;
  const number = status - 128;
  return Object.entries(constants.signals).find(([, n]) => n === number)?.[0];
}
