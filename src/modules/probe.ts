import type { Module } from './types.js';

/**
 * `probe`: identify a host with its own OS's command (uname on Linux, PowerShell on Windows),
 * so one plan step serves mixed Linux + Windows node sets. Reads only; never changes anything.
 */
export const probeModule: Module<Record<string, never>> = {
  name: 'probe',
  os: 'any',
  parseArgs(raw) {
    const unknown = Object.keys(raw);
    if (unknown.length > 0) throw new TypeError(`probe: takes no arguments, got "${unknown[0]}"`);
    return {};
  },
  *run(_args, context) {
    const result = yield context.os === 'windows'
      ? {
          kind: 'exec',
          command: '$v = [Environment]::OSVersion.Version; Write-Output ("Windows " + $v.ToString())',
        }
      : { kind: 'exec', command: 'uname -sr' };
    const os = result.stdout.trim();
    if (result.failed)
      return {
        changed: false,
        failed: true,
        msg: `could not identify host: ${result.stderr.trim() || `exit code ${result.exitCode}`}`,
      };
    return { changed: false, failed: false, msg: os, data: { os_release: os } };
  },
};
