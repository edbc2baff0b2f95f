import type { CommandResult } from '../types/command-result.js';
import { Redactor } from './redactor.js';

/**
 * What a no_log step shows instead of its result, in Ansible's words (ansible-core
 * lib/ansible/executor/task_result.py, TaskResult.clean_copy: `censored`).
 */
export const NO_LOG_MESSAGE =
  "the output has been hidden due to the fact that 'no_log: true' was specified for this result";

/** What replaces a no_log step's command line in events and failure reports. */
export const HIDDEN_COMMAND = '<hidden by no_log>';

/**
 * A no_log step's result as events, logs and failure reports show it, for `kubemix up` and
 * `kubemix run` alike: as in Ansible, neither the command line (it may carry a secret variable
 * the redactor has never seen) nor the output; how it ended (exit code, timeout, signal) stays.
 */
export function hiddenResult(result: CommandResult): CommandResult {
  return { ...result, command: HIDDEN_COMMAND, stdout: '', stderr: '' };
}

/** How a no_log step's failure report ends: why there is no output to read. */
export const NO_LOG_FAILURE_NOTE = 'output hidden by no_log';

/**
 * The command a no_log step's failure report names: the module (`shell`, `ec2_instances`), never
 * the command line, which may carry a secret variable the redactor has never seen.
 */
export function hiddenCommandOf(module: string): string {
  return `${module} ${HIDDEN_COMMAND}`;
}

/**
 * Why a no_log step failed, as the terminal, `status` and the event log show it, for `kubemix
 * up` and `kubemix run` alike: `no_log` hides secrets, never the error. `error` is how it ended
 * and the module's own message (an AWS error code and message, "non-zero return code", a thrown
 * error); every secret the run knows is replaced, and so is every secret-looking fragment of the
 * step's own `output` (its stdout, registered data), which is never shown: a module message that
 * quotes the output (assert, fail) cannot leak it. The output's stderr is not counted: where the
 * message is that stderr (a command that could not start), blanking it would hide the very error;
 * the secrets the run knows are still replaced in it.
 */
export function hiddenFailureReason(error: string, output: unknown, redactor: Redactor): string {
  const own = new Redactor();
  own.add(withoutStderr(output));
  return `${redactor.text(own.text(error))} (${NO_LOG_FAILURE_NOTE})`;
}

function withoutStderr(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutStderr);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([key]) => !key.startsWith('stderr'))
      .map(([key, inner]) => [key, withoutStderr(inner)]),
  );
}
