import { type RawArgs, rejectUnknown, requireString } from '../../../modules/args.js';
import { stepBuilder } from '../../../modules/step-builder.js';
import type { Module, ModuleRun } from '../../../modules/types.js';
import { reason, resource, virsh } from './common.js';

/** libvirt_remove_config_iso's arguments (the plan's and the module's one type). */
export interface RemoveArgs {
  uri: string;
  pool: string;
  domain: string;
  volume: string;
  /** The CD-ROM's target in the domain (sdd...). */
  target: string;
}

/**
 * `libvirt_remove_config_iso` (on the guest's hypervisor): the config CD-ROM holding a Windows
 * guest's Administrator password is ejected from the domain (live and in its definition) and its
 * volume deleted, recorded as deleted in the state. Tolerates a CD-ROM ejected or a volume gone.
 */
export const libvirtRemoveConfigIsoModule: Module<RemoveArgs> = {
  name: 'libvirt_remove_config_iso',
  os: 'linux',
  parseArgs(raw: RawArgs) {
    const module = 'libvirt_remove_config_iso';
    rejectUnknown(module, raw, ['uri', 'pool', 'domain', 'volume', 'target']);
    return {
      uri: requireString(module, raw, 'uri'),
      pool: requireString(module, raw, 'pool'),
      domain: requireString(module, raw, 'domain'),
      volume: requireString(module, raw, 'volume'),
      target: requireString(module, raw, 'target'),
    };
  },
  *run(args, context): ModuleRun {
    const removed = yield {
      kind: 'exec',
      command: [
        `if ${virsh(args.uri, 'domblklist', args.domain)} | awk '{print $2}' | grep -qxF -- "$(${virsh(args.uri, 'vol-path', '--pool', args.pool, args.volume)} 2>/dev/null)"; then`,
        `  ${virsh(args.uri, 'change-media', args.domain, args.target, '--eject', '--live', '--config', '--force')} >/dev/null`,
        'fi',
        `if ${virsh(args.uri, 'vol-info', '--pool', args.pool, args.volume)} >/dev/null 2>&1; then ${virsh(args.uri, 'vol-delete', '--pool', args.pool, args.volume)} >/dev/null; fi`,
      ].join('\n'),
    };
    if (removed.failed)
      return { changed: false, failed: true, msg: `cannot remove ${args.volume}: ${reason(removed)}` };
    yield {
      kind: 'record',
      update: { resources: [resource(context, 'volume', args.volume, 'deleted', { pool: args.pool })] },
    };
    return { changed: true, failed: false };
  },
};

/** A libvirt_remove_config_iso plan step. */
export const libvirtRemoveConfigIsoStep = stepBuilder(libvirtRemoveConfigIsoModule);
