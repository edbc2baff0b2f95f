/**
 * The one result shape every transport returns, for success and failure alike
 * (the execa habit: a failed command is a result, not an exception).
 */
export interface CommandResult {
  /** The command as it should be shown to people: secrets already redacted. */
  command: string;
  /** Exit code, or null when the command never exited on its own (signal, timeout, lost connection). */
  exitCode: number | null;
  /** Signal that ended the command, when one did. */
  signal?: string;
  stdout: string;
  stderr: string;
  durationMs: number;
  /** True when exitCode !== 0, the command timed out, or it could not run at all. */
  failed: boolean;
  timedOut: boolean;
  /** Host the command ran on (inventory name). */
  host?: string;
}

/** Builds a CommandResult for an operation that could not run at all (no connection, bad path...). */
export function failedResult(command: string, message: string, durationMs = 0, host?: string): CommandResult {
  const result: CommandResult = {
    command,
    exitCode: null,
    stdout: '',
    stderr: message,
    durationMs,
    failed: true,
    timedOut: false,
  };
  if (host !== undefined) result.host = host;
  return result;
}

/** Builds the CommandResult of an operation that succeeded without output (a copy, a reconnect). */
export function succeededResult(command: string, durationMs: number, host?: string): CommandResult {
  const result: CommandResult = {
    command,
    exitCode: 0,
    stdout: '',
    stderr: '',
    durationMs,
    failed: false,
    timedOut: false,
  };
  if (host !== undefined) result.host = host;
  return result;
}
