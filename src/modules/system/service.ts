import { shQuote } from '../../quote/index.js';
import { oneOf, optionalBool, type RawArgs, rejectUnknown, requireString } from '../args.js';
import { changeScript, scriptChanged } from '../shell.js';
import type { Module } from '../types.js';

/** Arguments of `service` (systemd only; also accepted as `systemd`). */
export interface ServiceArgs {
  name: string;
  state?: 'started' | 'stopped' | 'restarted' | 'reloaded';
  enabled?: boolean;
  daemonReload: boolean;
}

/** The systemctl script: probes first, acts only where the unit is not already as wanted. */
export function serviceScript(args: ServiceArgs, check: boolean): string {
  const n = shQuote(args.name);
  const steps = [
    'command -v systemctl >/dev/null 2>&1 || { echo "service: systemctl not found (only systemd hosts are supported)" >&2; exit 1; }',
  ];
  if (args.daemonReload) steps.push(check ? ':' : 'systemctl daemon-reload');
  if (args.enabled === true)
    steps.push(`systemctl is-enabled --quiet ${n} 2>/dev/null || kmx_do systemctl enable ${n}`);
  if (args.enabled === false)
    steps.push(`if systemctl is-enabled --quiet ${n} 2>/dev/null; then kmx_do systemctl disable ${n}; fi`);
  switch (args.state) {
    case 'started':
      steps.push(`systemctl is-active --quiet ${n} || kmx_do systemctl start ${n}`);
      break;
    case 'stopped':
      steps.push(`if systemctl is-active --quiet ${n}; then kmx_do systemctl stop ${n}; fi`);
      break;
    case 'restarted':
      steps.push(`kmx_do systemctl restart ${n}`);
      break;
    case 'reloaded':
      steps.push(`kmx_do systemctl reload ${n}`);
      break;
  }
  return changeScript(steps, check);
}

/** `service`: starts, stops, restarts, reloads, enables or disables a systemd unit. */
export const serviceModule: Module<ServiceArgs> = {
  name: 'service',
  os: 'linux',
  parseArgs(raw: RawArgs) {
    rejectUnknown('service', raw, ['name', 'state', 'enabled', 'daemon_reload']);
    const args: ServiceArgs = {
      name: requireString('service', raw, 'name'),
      daemonReload: optionalBool('service', raw, 'daemon_reload') ?? false,
    };
    if (raw['state'] !== undefined)
      args.state = oneOf(
        'service',
        raw,
        'state',
        ['started', 'stopped', 'restarted', 'reloaded'] as const,
        'started',
      );
    const enabled = optionalBool('service', raw, 'enabled');
    if (enabled !== undefined) args.enabled = enabled;
    if (args.state === undefined && args.enabled === undefined && !args.daemonReload)
      throw new TypeError('service: give at least one of "state", "enabled" or "daemon_reload"');
    return args;
  },
  *run(args, context) {
    const result = yield { kind: 'exec', command: serviceScript(args, context.checkMode) };
    const changed = scriptChanged(result);
    const data: Record<string, unknown> = { name: args.name };
    if (args.state) data['state'] = args.state;
    if (args.enabled !== undefined) data['enabled'] = args.enabled;
    if (result.failed)
      return {
        changed,
        failed: true,
        msg: result.stderr.trim() || `service: exit code ${result.exitCode}`,
        data,
      };
    return { changed, failed: false, data };
  },
};

/** `systemd`: the same module under Ansible's systemd name. */
export const systemdModule: Module<ServiceArgs> = { ...serviceModule, name: 'systemd' };
