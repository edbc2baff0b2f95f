import type { ModuleRunResult } from '../executor/run-module.js';
import type { CommandResult } from '../types/command-result.js';

/** How many stderr lines a failure report keeps. */
export const STDERR_TAIL_LINES = 5;

/** The last non-empty lines of a text. */
export function tailLines(text: string, lines = STDERR_TAIL_LINES): string {
  return text
    .split(/\r?\n/)
    .filter((line) => line.trim() !== '')
    .slice(-lines)
    .join('\n');
}

/**
 * The result that best explains a module run: the last failed command, else the last command.
 * A module that failed although every command succeeded (a check that found problems) has no
 * such result: its own message explains it.
 */
export function decisiveResult(outcome: ModuleRunResult): CommandResult | undefined {
  const failed = [...outcome.results].reverse().find((r) => r.failed);
  if (failed) return failed;
  return outcome.failed ? undefined : outcome.results.at(-1);
}

/** What went wrong, in a few words: exit code, timeout, signal, or the module's message. */
export function describeFailure(outcome: ModuleRunResult, result: CommandResult | undefined): string {
  const parts: string[] = [];
  if (result?.timedOut) parts.push('timed out');
  else if (result?.signal) parts.push(`killed by ${result.signal}`);
  else if (result?.failed && result.exitCode !== null) parts.push(`exit code ${result.exitCode}`);
  if (outcome.msg && !parts.some((p) => outcome.msg?.includes(p))) parts.push(outcome.msg);
  return parts.join(': ') || 'failed';
}

/**
 * The one-line-ish message of a failed step: which host, which task, which step, what ran,
 * how it ended and the last lines of stderr.
 */
export function formatStepFailure(options: {
  task: string;
  host: string;
  step: string;
  command?: string;
  reason: string;
  stderrTail?: string;
}): string {
  const ran = options.command ? ` ran \`${options.command}\`` : '';
  const tail = options.stderrTail ? `; stderr: ${options.stderrTail.replaceAll('\n', ' | ')}` : '';
  return `task ${options.task} failed on host ${options.host}: step "${options.step}"${ran}: ${options.reason}${tail}`;
}
