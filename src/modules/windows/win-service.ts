import { oneOf, optionalString, type RawArgs, rejectUnknown, requireString, stringList } from '../args.js';
import type { Module } from '../types.js';
import { EMIT_RESULT, moduleScript, outcomeFromResult } from './script.js';

const STATES = ['started', 'stopped', 'restarted', 'absent', 'paused'] as const;
const START_MODES = ['auto', 'delayed', 'disabled', 'manual'] as const;

/** Arguments of `win_service`. */
export interface WinServiceArgs {
  name: string;
  state?: (typeof STATES)[number];
  startMode?: (typeof START_MODES)[number];
  /** Binary path: creates the service when it does not exist, updates it when it differs. */
  path?: string;
  displayName?: string;
  description?: string;
  dependencies?: string[];
}

/** The PowerShell of win_service (Get-Service / New-Service / Set-Service / sc.exe, Win32_Service for facts). */
export function winServiceScript(args: WinServiceArgs, check: boolean): string {
  const header: Record<string, unknown> = { name: args.name, _check: check };
  if (args.state) header['state'] = args.state;
  if (args.startMode) header['start_mode'] = args.startMode;
  if (args.path !== undefined) header['path'] = args.path;
  if (args.displayName !== undefined) header['display_name'] = args.displayName;
  if (args.description !== undefined) header['description'] = args.description;
  if (args.dependencies) header['dependencies'] = args.dependencies;
  return moduleScript({
    module: 'win_service',
    header,
    vars: {
      kmName: args.name,
      kmState: args.state ?? null,
      kmStartMode: args.startMode ?? null,
      kmPath: args.path ?? null,
      kmDisplay: args.displayName ?? null,
      kmDescription: args.description ?? null,
      kmDependencies: args.dependencies ?? null,
      kmCheck: check,
    },
    initial: {
      name: args.name,
      exists: false,
      state: null,
      start_mode: null,
      path: null,
      display_name: null,
    },
    body: [
      '$kmSvc = Get-Service -Name $kmName -ErrorAction SilentlyContinue',
      "if ($kmState -eq 'absent') {",
      '  if ($kmSvc) {',
      '    if (-not $kmCheck) {',
      '      Stop-Service -Name $kmName -Force -ErrorAction SilentlyContinue',
      '      & sc.exe delete $kmName | Out-Null',
      '      if ($LASTEXITCODE -ne 0) { KmFail "sc.exe delete $kmName failed with exit code $LASTEXITCODE" }',
      '    }',
      '    $kmResult.changed = $true',
      '  }',
      `  ${EMIT_RESULT}`,
      '  exit 0',
      '}',
      'if (-not $kmSvc) {',
      "  if (-not $kmPath) { KmFail \"Service '$kmName' is not installed, need to set 'path' to create a new service\" }",
      '  if ($kmCheck) {',
      '    $kmResult.changed = $true',
      `  ${EMIT_RESULT}`,
      '    exit 0',
      '  }',
      "  $kmNew = @{ Name = $kmName; BinaryPathName = $kmPath; StartupType = 'Automatic' }",
      '  if ($kmDisplay) { $kmNew.DisplayName = $kmDisplay }',
      '  if ($kmDescription) { $kmNew.Description = $kmDescription }',
      '  if ($kmDependencies) { $kmNew.DependsOn = $kmDependencies }',
      '  New-Service @kmNew | Out-Null',
      '  $kmResult.changed = $true',
      '}',
      '$kmWmi = Get-CimInstance -ClassName Win32_Service -Filter "Name=\'$kmName\'"',
      'if ($kmPath -and $kmWmi.PathName -ne $kmPath) {',
      '  if (-not $kmCheck) { & sc.exe config $kmName binPath= $kmPath | Out-Null }',
      '  $kmResult.changed = $true',
      '}',
      'if ($kmDisplay -and $kmWmi.DisplayName -ne $kmDisplay) {',
      '  if (-not $kmCheck) { Set-Service -Name $kmName -DisplayName $kmDisplay }',
      '  $kmResult.changed = $true',
      '}',
      'if ($kmDescription -and $kmWmi.Description -ne $kmDescription) {',
      '  if (-not $kmCheck) { Set-Service -Name $kmName -Description $kmDescription }',
      '  $kmResult.changed = $true',
      '}',
      '$kmMode = ([string]$kmWmi.StartMode).ToLowerInvariant()',
      "if ($kmMode -eq 'auto' -and $kmWmi.DelayedAutoStart) { $kmMode = 'delayed' }",
      'if ($kmStartMode -and $kmStartMode -ne $kmMode) {',
      '  if (-not $kmCheck) {',
      "    if ($kmStartMode -eq 'delayed') { & sc.exe config $kmName start= delayed-auto | Out-Null }",
      "    else { Set-Service -Name $kmName -StartupType (@{ auto = 'Automatic'; manual = 'Manual'; disabled = 'Disabled' })[$kmStartMode] }",
      '  }',
      '  $kmMode = $kmStartMode',
      '  $kmResult.changed = $true',
      '}',
      '$kmSvc = Get-Service -Name $kmName',
      '$kmStatus = [string]$kmSvc.Status',
      'try {',
      '  switch ($kmState) {',
      "    'started' { if ($kmStatus -ne 'Running') { if (-not $kmCheck) { Start-Service -Name $kmName }; $kmResult.changed = $true } }",
      "    'stopped' { if ($kmStatus -ne 'Stopped') { if (-not $kmCheck) { Stop-Service -Name $kmName -Force }; $kmResult.changed = $true } }",
      "    'restarted' { if (-not $kmCheck) { Restart-Service -Name $kmName -Force }; $kmResult.changed = $true }",
      "    'paused' { if ($kmStatus -ne 'Paused') { if (-not $kmCheck) { Suspend-Service -Name $kmName }; $kmResult.changed = $true } }",
      '  }',
      '} catch {',
      '  KmFail "Failed to make service $kmName $($kmState): $($_.Exception.Message)"',
      '}',
      '$kmSvc = Get-Service -Name $kmName',
      '$kmWmi = Get-CimInstance -ClassName Win32_Service -Filter "Name=\'$kmName\'"',
      '$kmResult.exists = $true',
      '$kmResult.state = ([string]$kmSvc.Status).ToLowerInvariant()',
      '$kmResult.start_mode = $kmMode',
      '$kmResult.path = $kmWmi.PathName',
      '$kmResult.display_name = $kmWmi.DisplayName',
    ],
  });
}

/** `win_service`: creates, configures, starts, stops, restarts, pauses or removes a Windows service. */
export const winServiceModule: Module<WinServiceArgs> = {
  name: 'win_service',
  os: 'windows',
  parseArgs(raw: RawArgs) {
    rejectUnknown('win_service', raw, [
      'name',
      'state',
      'start_mode',
      'path',
      'display_name',
      'description',
      'dependencies',
    ]);
    const args: WinServiceArgs = { name: requireString('win_service', raw, 'name') };
    if (/['"\r\n]/.test(args.name))
      throw new TypeError('win_service: "name" must not contain quotes or line breaks');
    if (raw['state'] !== undefined && raw['state'] !== null)
      args.state = oneOf('win_service', raw, 'state', STATES, 'started');
    if (raw['start_mode'] !== undefined && raw['start_mode'] !== null)
      args.startMode = oneOf('win_service', raw, 'start_mode', START_MODES, 'auto');
    for (const [key, field] of [
      ['path', 'path'],
      ['display_name', 'displayName'],
      ['description', 'description'],
    ] as const) {
      const value = optionalString('win_service', raw, key);
      if (value !== undefined) args[field] = value;
    }
    const dependencies = stringList('win_service', raw, 'dependencies');
    if (dependencies) args.dependencies = dependencies;
    return args;
  },
  *run(args, context) {
    const result = yield {
      kind: 'exec',
      command: winServiceScript(args, context.checkMode),
      display: `win_service: ${args.name}${args.state ? ` state=${args.state}` : ''}${args.startMode ? ` start_mode=${args.startMode}` : ''}`,
    };
    return outcomeFromResult('win_service', result);
  },
};
