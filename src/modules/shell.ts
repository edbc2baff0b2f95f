import { shQuote } from '../quote/index.js';
import type { CommandResult } from '../types/command-result.js';
import type { ModuleOutcome } from './types.js';

/** Marker a change script prints when it changed (or, in check mode, would change) something. */
export const CHANGED_MARKER = '__KUBEMIX_CHANGED__';

/**
 * Wraps shell steps into one script that reports whether it changed anything. Steps call
 * `kmx_do CMD...` for every mutating command: it records the change and, unless in check
 * mode, runs the command. One round trip does the probe and the change.
 */
export function changeScript(steps: string[], check: boolean): string {
  return [
    'set -e',
    'kmx_changed=0',
    `kmx_do() { kmx_changed=1; ${check ? ':' : '"$@"'}; }`,
    ...steps,
    `if [ "$kmx_changed" = 1 ]; then echo ${CHANGED_MARKER}; fi`,
  ].join('\n');
}

/** True when a change script reported a change. */
export function scriptChanged(result: CommandResult): boolean {
  return result.stdout.includes(CHANGED_MARKER);
}

/** stdout without the change marker lines. */
export function stripMarkers(stdout: string): string {
  return stdout
    .split('\n')
    .filter((line) => line !== CHANGED_MARKER)
    .join('\n');
}

/** A one-line failure message from a command result: stderr, else stdout, else the exit code. */
export function failureMessage(result: CommandResult): string {
  const text = (result.stderr.trim() || result.stdout.trim()).split('\n').slice(-3).join(' ');
  if (result.timedOut) return `timed out${text ? `: ${text}` : ''}`;
  return text || `exit code ${result.exitCode ?? 'none'}`;
}

/** Standard registered fields of a command result (Ansible's rc/stdout/stderr/..._lines). */
export function commandData(result: CommandResult): Record<string, unknown> {
  return {
    rc: result.exitCode,
    stdout: result.stdout.replace(/\n$/, ''),
    stderr: result.stderr.replace(/\n$/, ''),
    stdout_lines: lines(result.stdout),
    stderr_lines: lines(result.stderr),
    cmd: result.command,
  };
}

function lines(text: string): string[] {
  const trimmed = text.replace(/\n$/, '');
  return trimmed === '' ? [] : trimmed.split('\n');
}

/** Prints a file with framing that survives transports which strip a final newline. */
export function readFileCommand(path: string): string {
  const p = shQuote(path);
  return `if [ -f ${p} ]; then printf '__KMX_FILE__ %s\\n' "$(stat -c %a -- ${p})"; cat -- ${p}; printf '\\n__KMX_EOF__\\n'; elif [ -e ${p} ]; then echo __KMX_NOT_FILE__; else echo __KMX_MISSING__; fi`;
}

/** Parses {@link readFileCommand} output. */
export function parseReadFile(
  stdout: string,
): { state: 'file'; content: string; mode: string } | { state: 'missing' | 'not-file' } {
  if (stdout.startsWith('__KMX_MISSING__')) return { state: 'missing' };
  if (stdout.startsWith('__KMX_NOT_FILE__')) return { state: 'not-file' };
  const header = /^__KMX_FILE__ (\d+)\n/.exec(stdout);
  const end = stdout.lastIndexOf('\n__KMX_EOF__');
  if (!header || end < 0) throw new Error('unexpected output while reading a file');
  return { state: 'file', mode: header[1]!, content: stdout.slice(header[0].length, end) };
}

/**
 * What every command module (command, shell, raw, script, win_command, win_shell) reports in
 * check mode: Ansible skips commands it cannot predict.
 */
export function checkModeSkip(): ModuleOutcome {
  return {
    changed: false,
    failed: false,
    msg: 'Command would have run if not in check mode',
    data: { skipped: true },
  };
}
