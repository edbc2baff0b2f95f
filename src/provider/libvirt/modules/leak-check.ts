import type { RawArgs } from '../../../modules/args.js';
import { stepBuilder } from '../../../modules/step-builder.js';
import type { Module, ModuleRun } from '../../../modules/types.js';
import { reason } from './common.js';
import {
  type ClusterNamesArgs,
  discoveryScript,
  namesHere,
  parseClusterNames,
  parseFound,
} from './discovery.js';

/**
 * `libvirt_leak_check`: after `down`, nothing of the cluster may be left on the hypervisor
 * (see discoveryScript for what is looked at). Fails naming every leftover.
 */
export const libvirtLeakCheckModule: Module<ClusterNamesArgs> = {
  name: 'libvirt_leak_check',
  os: 'linux',
  parseArgs: (raw: RawArgs) => parseClusterNames('libvirt_leak_check', raw),
  *run(args, context): ModuleRun {
    const result = yield {
      kind: 'exec',
      command: discoveryScript(namesHere('libvirt_leak_check', args, context)),
    };
    if (result.failed)
      return { changed: false, failed: true, msg: `cannot look for leftovers: ${reason(result)}` };
    const found = parseFound(result);
    if (found.length === 0)
      return { changed: false, failed: false, msg: `nothing of ${args.cluster} is left`, data: { found } };
    return {
      changed: false,
      failed: true,
      msg: `left behind on ${context.host.name}: ${found.map((f) => `${f.kind} ${f.name}`).join('; ')}`,
      data: { found },
    };
  },
};

/** `libvirt_inspect`: what of the cluster exists on the hypervisor now (for `kubemix status`). Changes nothing. */
export const libvirtInspectModule: Module<ClusterNamesArgs> = {
  name: 'libvirt_inspect',
  os: 'linux',
  parseArgs: (raw: RawArgs) => parseClusterNames('libvirt_inspect', raw),
  *run(args, context): ModuleRun {
    const result = yield {
      kind: 'exec',
      command: discoveryScript(namesHere('libvirt_inspect', args, context)),
    };
    if (result.failed) return { changed: false, failed: true, msg: `cannot inspect: ${reason(result)}` };
    return { changed: false, failed: false, data: { found: parseFound(result) } };
  },
};

/** A libvirt_leak_check plan step. */
export const libvirtLeakCheckStep = stepBuilder(libvirtLeakCheckModule, ['hypervisors']);

/** A libvirt_inspect plan step. */
export const libvirtInspectStep = stepBuilder(libvirtInspectModule, ['hypervisors']);
