import { oneOf, optionalString, type RawArgs, rejectUnknown, stringList } from '../args.js';
import type { Module } from '../types.js';
import { moduleScript, outcomeFromResult } from './script.js';

/** Arguments of `win_path`. */
export interface WinPathArgs {
  elements: string[];
  /** The environment variable (default PATH). */
  name: string;
  scope: 'machine' | 'user';
  state: 'present' | 'absent';
}

const KEYS = {
  machine: 'HKLM:\\SYSTEM\\CurrentControlSet\\Control\\Session Manager\\Environment',
  user: 'HKCU:\\Environment',
};

/**
 * The PowerShell of win_path. Like Ansible it reads and writes the registry value without
 * expanding it (so `%SystemRoot%` entries survive) and compares entries case-insensitively,
 * ignoring a trailing backslash. New entries go to the end, in the order given.
 */
export function winPathScript(args: WinPathArgs, check: boolean): string {
  return moduleScript({
    module: 'win_path',
    header: { elements: args.elements, name: args.name, scope: args.scope, state: args.state, _check: check },
    vars: {
      kmElements: args.elements,
      kmName: args.name,
      kmKey: KEYS[args.scope],
      kmState: args.state,
      kmCheck: check,
    },
    initial: { path_value: null },
    body: [
      'function KmNormal([string]$Entry) { return [Environment]::ExpandEnvironmentVariables($Entry).TrimEnd([char]92).ToLowerInvariant() }',
      '$kmRegKey = Get-Item -LiteralPath $kmKey',
      "$kmRaw = $kmRegKey.GetValue($kmName, '', [Microsoft.Win32.RegistryValueOptions]::DoNotExpandEnvironmentNames)",
      "$kmCurrent = @($kmRaw -split ';' | Where-Object { $_ -ne '' })",
      '$kmNew = New-Object System.Collections.ArrayList',
      'foreach ($kmEntry in $kmCurrent) { [void]$kmNew.Add($kmEntry) }',
      "if ($kmState -eq 'present') {",
      '  foreach ($kmElement in $kmElements) {',
      '    $kmSeen = @($kmNew | Where-Object { (KmNormal $_) -eq (KmNormal $kmElement) })',
      '    if ($kmSeen.Count -eq 0) { [void]$kmNew.Add($kmElement) }',
      '  }',
      '} else {',
      '  $kmDrop = @($kmElements | ForEach-Object { KmNormal $_ })',
      '  $kmKeep = @($kmNew | Where-Object { $kmDrop -notcontains (KmNormal $_) })',
      '  $kmNew = New-Object System.Collections.ArrayList',
      '  foreach ($kmEntry in $kmKeep) { [void]$kmNew.Add($kmEntry) }',
      '}',
      "$kmValue = ($kmNew -join ';')",
      "if ($kmValue -ne (($kmCurrent) -join ';')) {",
      '  $kmResult.changed = $true',
      '  if (-not $kmCheck) { Set-ItemProperty -LiteralPath $kmKey -Name $kmName -Value $kmValue -Type ExpandString }',
      '}',
      '$kmResult.path_value = $kmValue',
    ],
  });
}

/** `win_path`: adds or removes entries of a PATH-style variable (machine or user scope). */
export const winPathModule: Module<WinPathArgs> = {
  name: 'win_path',
  os: 'windows',
  parseArgs(raw: RawArgs) {
    rejectUnknown('win_path', raw, ['elements', 'name', 'scope', 'state']);
    const elements = stringList('win_path', raw, 'elements');
    if (!elements || elements.length === 0)
      throw new TypeError('win_path: "elements" is required (a list of paths)');
    if (elements.some((e) => e.includes(';')))
      throw new TypeError('win_path: an element of "elements" contains ";"');
    return {
      elements,
      name: optionalString('win_path', raw, 'name') ?? 'PATH',
      scope: oneOf('win_path', raw, 'scope', ['machine', 'user'], 'machine'),
      state: oneOf('win_path', raw, 'state', ['present', 'absent'], 'present'),
    };
  },
  *run(args, context) {
    const result = yield {
      kind: 'exec',
      command: winPathScript(args, context.checkMode),
      display: `win_path: ${args.state} ${args.elements.join(';')} (${args.scope} ${args.name})`,
    };
    return outcomeFromResult('win_path', result);
  },
};
