import { type RawArgs, rejectUnknown } from '../../../modules/args.js';
import { immediate } from '../../../modules/immediate.js';
import { stepBuilder } from '../../../modules/step-builder.js';
import type { Module } from '../../../modules/types.js';
import { generateAdministratorPassword } from '../windows/password.js';
import { forThisHypervisor } from './common.js';

/** libvirt_windows_passwords' arguments (the plan's and the module's one type). */
export interface PasswordsArgs {
  /** Windows nodes placed on each hypervisor, by hypervisor name. */
  nodes: Record<string, string[]>;
  /** Passwords an earlier run registered (secrets.json), by node: kept, never replaced. */
  known: Record<string, unknown>;
}

/**
 * `libvirt_windows_passwords`: the Administrator password of every Windows guest placed on this
 * hypervisor, generated once (24 random characters meeting Windows' complexity rule) and returned
 * as data for a secret `register` (secrets.json, 0600; never state.json or the logs). It runs
 * before any config ISO is written, so a password is on disk before any guest could use it; a
 * resumed run keeps the ones it finds. Runs no command.
 */
export const libvirtWindowsPasswordsModule: Module<PasswordsArgs> = {
  name: 'libvirt_windows_passwords',
  os: 'linux',
  parseArgs(raw: RawArgs) {
    rejectUnknown('libvirt_windows_passwords', raw, ['nodes', 'known']);
    const known = raw['known'] ?? {};
    if (typeof known !== 'object' || known === null || Array.isArray(known))
      throw new TypeError('libvirt_windows_passwords: known must be a mapping of node name to password');
    return { nodes: raw['nodes'] as PasswordsArgs['nodes'], known: known as Record<string, unknown> };
  },
  run(args, context) {
    const nodes = forThisHypervisor<string[]>('libvirt_windows_passwords', args.nodes, context) ?? [];
    const passwords: Record<string, string> = {};
    let made = 0;
    for (const node of nodes) {
      const known = args.known[node];
      if (typeof known === 'string' && known !== '') passwords[node] = known;
      else {
        passwords[node] = generateAdministratorPassword();
        made++;
      }
    }
    return immediate({ changed: made > 0, failed: false, data: passwords });
  },
};

/** A libvirt_windows_passwords plan step (`known` may be left out). */
export const libvirtWindowsPasswordsStep = stepBuilder(libvirtWindowsPasswordsModule, ['known']);
