import type { ModuleContext } from '../../../src/modules/types.js';
import { RESULT_MARKER } from '../../../src/modules/windows/script.js';
import type { CommandResult } from '../../../src/types/command-result.js';

/** A module context for a Windows host. */
export function windowsContext(overrides: Partial<ModuleContext> = {}): ModuleContext {
  return {
    host: {
      name: 'win1',
      address: '10.0.0.9',
      os: 'windows',
      connection: 'winrm',
      role: 'worker',
      group: 'windows',
    },
    os: 'windows',
    vars: {},
    checkMode: false,
    ...overrides,
  };
}

/** What a module script prints: a result line (and an exit code that matches failed). */
export function resultOf(
  fields: Record<string, unknown>,
  options: Partial<CommandResult> = {},
): CommandResult {
  const failed = fields['failed'] === true;
  const exitCode = options.exitCode === undefined ? (failed ? 1 : 0) : options.exitCode;
  return {
    command: 'script',
    exitCode,
    stdout: `${RESULT_MARKER} ${JSON.stringify({ changed: false, failed: false, ...fields })}\r\n`,
    stderr: '',
    durationMs: 5,
    failed: exitCode !== 0,
    timedOut: false,
    ...options,
  };
}
