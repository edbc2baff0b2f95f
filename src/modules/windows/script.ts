import { psQuote } from '../../quote/index.js';
import type { CommandResult } from '../../types/command-result.js';
import { failureMessage } from '../shell.js';
import type { ModuleOutcome } from '../types.js';

/**
 * The shape every Windows module script shares: a header line naming the module and its
 * (non-secret) arguments, real PowerShell that does the work, and one machine-readable result
 * line. The header lets a test simulator dispatch on what the script means without
 * interpreting PowerShell; Windows itself sees a comment.
 */

/** Prefix of the first line of every script a Windows module sends. */
export const MODULE_HEADER_PREFIX = '# kubemix-module: ';

/** Prefix of the one line of JSON a module script prints with its result. */
export const RESULT_MARKER = '__KUBEMIX_RESULT__';

/** Printed by win_shell / win_command when a creates/removes guard matched. */
export const WIN_SKIPPED_MARKER = '__KUBEMIX_SKIPPED__';

/** A PowerShell literal for a JSON-like value: strings quoted, booleans `$true`, lists `@(...)`. */
export function psValue(value: unknown): string {
  if (value === undefined || value === null) return '$null';
  if (typeof value === 'boolean') return value ? '$true' : '$false';
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new TypeError(`cannot write ${value} as a PowerShell literal`);
    return String(value);
  }
  if (typeof value === 'string') return psQuote(value);
  if (Array.isArray(value)) return `@(${value.map(psValue).join(', ')})`;
  throw new TypeError(`cannot write a ${typeof value} as a PowerShell literal`);
}

/** The header line: `# kubemix-module: win_file {"path":"C:\\x",...}` (JSON keeps it on one line). */
export function moduleHeader(module: string, args: Record<string, unknown>): string {
  return `${MODULE_HEADER_PREFIX}${module} ${JSON.stringify(args)}`;
}

/** Parses a header line back into module name and arguments (used by simulators and tests). */
export function parseModuleHeader(
  script: string,
): { module: string; args: Record<string, unknown> } | undefined {
  const first = script.replace(/^\uFEFF/, '').split(/\r?\n/, 1)[0] ?? '';
  if (!first.startsWith(MODULE_HEADER_PREFIX)) return undefined;
  const rest = first.slice(MODULE_HEADER_PREFIX.length);
  const space = rest.indexOf(' ');
  const module = space < 0 ? rest : rest.slice(0, space);
  const json = space < 0 ? '{}' : rest.slice(space + 1);
  try {
    const args = JSON.parse(json) as unknown;
    if (!args || typeof args !== 'object' || Array.isArray(args)) return undefined;
    return { module, args: args as Record<string, unknown> };
  } catch {
    return undefined;
  }
}

/** The PowerShell statement that prints `$kmResult` as the result line. */
export const EMIT_RESULT = `[Console]::Out.WriteLine('${RESULT_MARKER} ' + (ConvertTo-Json -InputObject $kmResult -Compress -Depth 6))`;

/**
 * A module script: header, strict error handling, `$kmResult` set up with `initial` fields,
 * a `KmFail` function that prints the result with failed=true and exits 1, the body, and the
 * result line. `vars` become `$name = <literal>` lines.
 */
export function moduleScript(options: {
  module: string;
  header: Record<string, unknown>;
  vars: Record<string, unknown>;
  initial?: Record<string, unknown>;
  body: string[];
}): string {
  const initial = { changed: false, failed: false, ...options.initial };
  const fields = Object.entries(initial)
    .map(([key, value]) => `${key} = ${psValue(value)}`)
    .join('; ');
  return [
    moduleHeader(options.module, options.header),
    "$ErrorActionPreference = 'Stop'",
    ...Object.entries(options.vars).map(([name, value]) => `$${name} = ${psValue(value)}`),
    `$kmResult = @{ ${fields} }`,
    'function KmFail([string]$Message) {',
    '  $kmResult.failed = $true',
    '  $kmResult.msg = $Message',
    `  ${EMIT_RESULT}`,
    '  exit 1',
    '}',
    ...options.body,
    EMIT_RESULT,
  ].join('\n');
}

/** The JSON object on the last result line of stdout, or undefined when there is none. */
export function parseResultLine(stdout: string): Record<string, unknown> | undefined {
  const lines = stdout.split(/\r?\n/);
  for (let i = lines.length - 1; i >= 0; i--) {
    const line = lines[i]!.trim();
    if (!line.startsWith(RESULT_MARKER)) continue;
    try {
      const value = JSON.parse(line.slice(RESULT_MARKER.length).trim()) as unknown;
      if (value && typeof value === 'object' && !Array.isArray(value))
        return value as Record<string, unknown>;
    } catch {
      return undefined;
    }
  }
  return undefined;
}

/**
 * Turns a module script's command result into an outcome: the result line decides
 * changed/failed/msg/reboot_required; without one, the command failed in a way the script did
 * not report (lost connection, syntax error, killed) and its stderr says why.
 */
export function outcomeFromResult(module: string, result: CommandResult): ModuleOutcome {
  const parsed = parseResultLine(result.stdout);
  if (!parsed) {
    return {
      changed: false,
      failed: true,
      msg: result.failed
        ? `${module}: ${failureMessage(result)}`
        : `${module}: the script printed no result line (${RESULT_MARKER})`,
      data: { rc: result.exitCode, stderr: result.stderr.trim() },
    };
  }
  const { changed, failed, msg, ...data } = parsed;
  const outcome: ModuleOutcome = {
    changed: changed === true,
    // A result line that says success on a failed command is not trusted.
    failed: failed === true || result.failed,
    data,
  };
  if (typeof msg === 'string' && msg !== '') outcome.msg = `${module}: ${msg}`;
  else if (outcome.failed) outcome.msg = `${module}: ${failureMessage(result)}`;
  if (data['reboot_required'] === true) outcome.rebootRequired = true;
  return outcome;
}
