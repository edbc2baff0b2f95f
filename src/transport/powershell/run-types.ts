import type { CommandResult } from '../../types/command-result.js';
import { decodeClixml } from './clixml.js';

/** One command for the shell: the command line, stdin and how to watch its output. */
export interface RunOptions {
  commandLine: string;
  args?: string[];
  stdin?: Buffer | AsyncIterable<Buffer>;
  timeoutMs?: number;
  signal?: AbortSignal;
  onStdout?: (data: Buffer) => void;
  onStderr?: (data: Buffer) => void;
  /** Keep stdout in memory (false for downloads, which stream it). */
  collectStdout?: boolean;
}

/** How a run ended: exit code and output, or why it could not finish. */
export interface RunOutcome {
  exitCode: number | null;
  stdout: Buffer;
  stderr: Buffer;
  timedOut: boolean;
  /** Why the command could not finish (lost connection, protocol error, cancelled). */
  error?: string;
  durationMs: number;
}

/**
 * Collects a run's output and builds its outcome when it ends; the same for every wire that
 * runs PowerShell (WinRM shells, SSH exec channels).
 */
export function outcomeCollector(): {
  /** When the run began (Date.now()), for time limits. */
  started: number;
  stdout: Buffer[];
  stderr: Buffer[];
  outcome: (partial: Partial<RunOutcome>) => RunOutcome;
} {
  const started = Date.now();
  const stdout: Buffer[] = [];
  const stderr: Buffer[] = [];
  return {
    started,
    stdout,
    stderr,
    outcome: (partial) => ({
      exitCode: null,
      stdout: Buffer.concat(stdout),
      stderr: Buffer.concat(stderr),
      timedOut: false,
      durationMs: Date.now() - started,
      ...partial,
    }),
  };
}

/** Runs one command line in the host's shell until it is done (the transport's core loop). */
export type RunCommand = (options: RunOptions) => Promise<RunOutcome>;

/** Turns a run into the one CommandResult shape; PowerShell's CLIXML stderr becomes plain text. */
export function toResult(
  host: string,
  display: string,
  run: RunOutcome,
  decodeStderr: boolean,
): CommandResult {
  let stderr = run.stderr.toString('utf8');
  if (decodeStderr) stderr = decodeClixml(stderr);
  if (run.error) stderr = stderr ? `${stderr}${stderr.endsWith('\n') ? '' : '\n'}${run.error}` : run.error;
  return {
    command: display,
    exitCode: run.exitCode,
    stdout: run.stdout.toString('utf8'),
    stderr,
    durationMs: run.durationMs,
    failed: run.exitCode !== 0 || run.timedOut || run.error !== undefined,
    timedOut: run.timedOut,
    host,
  };
}
