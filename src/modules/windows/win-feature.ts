import { oneOf, optionalBool, optionalString, type RawArgs, rejectUnknown, stringList } from '../args.js';
import type { Module } from '../types.js';
import { moduleScript, outcomeFromResult } from './script.js';
import { parseWinRebootArgs, rebootFlow } from './win-reboot.js';

/** Arguments of `win_feature`. */
export interface WinFeatureArgs {
  name: string[];
  state: 'present' | 'absent';
  includeSubFeatures: boolean;
  includeManagementTools: boolean;
  source?: string;
  /** Reboot (the win_reboot way) when a feature needs it. Default false: only report reboot_required. */
  restart: boolean;
}

/** The PowerShell of win_feature: Install-/Uninstall-WindowsFeature (with -WhatIf in check mode). */
export function winFeatureScript(args: WinFeatureArgs, check: boolean): string {
  const header: Record<string, unknown> = {
    name: args.name,
    state: args.state,
    include_sub_features: args.includeSubFeatures,
    include_management_tools: args.includeManagementTools,
    _check: check,
  };
  if (args.source !== undefined) header['source'] = args.source;
  return moduleScript({
    module: 'win_feature',
    header,
    vars: {
      kmNames: args.name,
      kmState: args.state,
      kmSub: args.includeSubFeatures,
      kmTools: args.includeManagementTools,
      kmSource: args.source ?? null,
      kmCheck: check,
    },
    initial: { reboot_required: false, success: true, exitcode: null, feature_result: [] },
    body: [
      "$kmParams = @{ Name = $kmNames; WhatIf = $kmCheck; ErrorAction = 'Stop' }",
      "if ($kmState -eq 'present') {",
      '  $kmParams.IncludeAllSubFeature = $kmSub',
      '  $kmParams.IncludeManagementTools = $kmTools',
      '  if ($kmSource) { $kmParams.Source = $kmSource }',
      '  try { $kmRun = Install-WindowsFeature @kmParams } catch { KmFail "Failed to install Windows features $($kmNames -join \', \'): $($_.Exception.Message)" }',
      '} else {',
      '  try { $kmRun = Uninstall-WindowsFeature @kmParams } catch { KmFail "Failed to uninstall Windows features $($kmNames -join \', \'): $($_.Exception.Message)" }',
      '}',
      '$kmResult.exitcode = [string]$kmRun.ExitCode',
      '$kmResult.success = [bool]$kmRun.Success',
      "$kmResult.reboot_required = ([string]$kmRun.RestartNeeded -eq 'Yes')",
      '$kmResult.feature_result = @($kmRun.FeatureResult | ForEach-Object {',
      '  @{ id = $_.Id; display_name = $_.DisplayName; message = [string]$_.Message; reboot_required = [bool]$_.RestartNeeded; skip_reason = [string]$_.SkipReason; success = [bool]$_.Success }',
      '})',
      '$kmResult.changed = ($kmResult.feature_result.Count -gt 0)',
      "if (-not $kmRun.Success) { KmFail \"Failed to $(if ($kmState -eq 'present') { 'install' } else { 'uninstall' }) Windows features: exit code $($kmRun.ExitCode)\" }",
    ],
  });
}

/**
 * `win_feature`: installs or removes Windows roles and features and reports `reboot_required`
 * (with `restart: true` it also reboots, the win_reboot way, when a feature needs it).
 */
export const winFeatureModule: Module<WinFeatureArgs> = {
  name: 'win_feature',
  os: 'windows',
  parseArgs(raw: RawArgs) {
    rejectUnknown('win_feature', raw, [
      'name',
      'state',
      'include_sub_features',
      'include_management_tools',
      'source',
      'restart',
    ]);
    const name = stringList('win_feature', raw, 'name');
    if (!name || name.length === 0) throw new TypeError('win_feature: "name" is required');
    const args: WinFeatureArgs = {
      name,
      state: oneOf('win_feature', raw, 'state', ['present', 'absent'], 'present'),
      includeSubFeatures: optionalBool('win_feature', raw, 'include_sub_features') ?? false,
      includeManagementTools: optionalBool('win_feature', raw, 'include_management_tools') ?? false,
      restart: optionalBool('win_feature', raw, 'restart') ?? false,
    };
    const source = optionalString('win_feature', raw, 'source');
    if (source !== undefined) args.source = source;
    return args;
  },
  *run(args, context) {
    const result = yield {
      kind: 'exec',
      command: winFeatureScript(args, context.checkMode),
      display: `win_feature: ${args.state} ${args.name.join(', ')}`,
    };
    const outcome = outcomeFromResult('win_feature', result);
    if (outcome.failed || !outcome.rebootRequired || !args.restart || context.checkMode) return outcome;
    const reboot = yield* rebootFlow(parseWinRebootArgs({}));
    const data = { ...outcome.data, restarted: !reboot.failed, reboot: reboot.data };
    if (reboot.failed)
      return {
        changed: true,
        failed: true,
        msg: `win_feature: ${reboot.msg ?? 'reboot failed'}`,
        data,
        rebootRequired: true,
      };
    return { changed: true, failed: false, data: { ...data, reboot_required: false } };
  },
};
