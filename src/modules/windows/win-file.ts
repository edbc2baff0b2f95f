import { oneOf, optionalString, type RawArgs, rejectUnknown } from '../args.js';
import type { Module } from '../types.js';
import { moduleScript, outcomeFromResult } from './script.js';

/** Arguments of `win_file`. */
export interface WinFileArgs {
  path: string;
  state: 'file' | 'directory' | 'absent' | 'touch';
}

/** The PowerShell of win_file (one round trip: look, then change unless in check mode). */
export function winFileScript(args: WinFileArgs, check: boolean): string {
  return moduleScript({
    module: 'win_file',
    header: { path: args.path, state: args.state, _check: check },
    vars: { kmPath: args.path, kmState: args.state, kmCheck: check },
    initial: { path: args.path, state: args.state },
    body: [
      '$kmItem = Get-Item -LiteralPath $kmPath -Force -ErrorAction SilentlyContinue',
      'switch ($kmState) {',
      "  'absent' {",
      '    if ($kmItem) {',
      '      if (-not $kmCheck) { Remove-Item -LiteralPath $kmPath -Recurse -Force }',
      '      $kmResult.changed = $true',
      '    }',
      '  }',
      "  'directory' {",
      '    if ($kmItem -and -not $kmItem.PSIsContainer) { KmFail "path $kmPath exists but is a file" }',
      '    if (-not $kmItem) {',
      '      if (-not $kmCheck) { New-Item -ItemType Directory -Path $kmPath -Force | Out-Null }',
      '      $kmResult.changed = $true',
      '    }',
      '  }',
      "  'file' {",
      '    if (-not $kmItem) { KmFail "path $kmPath will not be created" }',
      '    if ($kmItem.PSIsContainer) { KmFail "path $kmPath exists but is a directory" }',
      '  }',
      "  'touch' {",
      '    if ($kmItem -and $kmItem.PSIsContainer) { KmFail "path $kmPath exists but is a directory" }',
      '    if (-not $kmCheck) {',
      '      if ($kmItem) { $kmItem.LastWriteTime = Get-Date } else { New-Item -ItemType File -Path $kmPath -Force | Out-Null }',
      '    }',
      '    $kmResult.changed = $true',
      '  }',
      '}',
    ],
  });
}

/**
 * `win_file`: makes a path a file (must exist), a directory (created with its parents), absent
 * (removed recursively), or touched (created empty or its modification time updated).
 */
export const winFileModule: Module<WinFileArgs> = {
  name: 'win_file',
  os: 'windows',
  parseArgs(raw: RawArgs) {
    rejectUnknown('win_file', raw, ['path', 'dest', 'name', 'state']);
    const path =
      optionalString('win_file', raw, 'path') ??
      optionalString('win_file', raw, 'dest') ??
      optionalString('win_file', raw, 'name');
    if (!path) throw new TypeError('win_file: "path" is required');
    const state =
      raw['state'] === undefined || raw['state'] === null
        ? undefined
        : oneOf('win_file', raw, 'state', ['file', 'directory', 'absent', 'touch'], 'file');
    // Ansible: without a state the path's current kind is kept; a missing path is an error, as for state=file.
    return { path, state: state ?? 'file' };
  },
  *run(args, context) {
    const result = yield {
      kind: 'exec',
      command: winFileScript(args, context.checkMode),
      display: `win_file: ${args.path} state=${args.state}`,
    };
    return outcomeFromResult('win_file', result);
  },
};
