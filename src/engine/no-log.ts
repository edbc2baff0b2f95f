import type { CommandResult } from '../types/command-result.js';

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

/** Why a no_log step failed, without its output or message: how it ended, then Ansible's notice. */
export function hiddenFailureReason(result: CommandResult | undefined): string {
  const ended = result?.timedOut
    ? 'timed out'
    : result?.signal
      ? `killed by ${result.signal}`
      : result?.exitCode !== null && result?.exitCode !== undefined
        ? `exit code ${result.exitCode}`
        : 'failed';
  return `${ended}: ${NO_LOG_MESSAGE}`;
}
