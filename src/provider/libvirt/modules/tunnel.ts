import type { RawArgs } from '../../../modules/args.js';
import { stepBuilder } from '../../../modules/step-builder.js';
import type { Module, ModuleRun } from '../../../modules/types.js';
import { type TunnelDefinition, tunnelScript } from '../tunnel.js';
import {
  forThisHypervisor,
  type LibvirtCommon,
  outputLines,
  parseCommon,
  reason,
  resource,
} from './common.js';

/** libvirt_tunnel's arguments (the plan's and the module's one type). */
export interface TunnelArgs extends LibvirtCommon {
  /** Each hypervisor's VXLAN device, by hypervisor name (none: no tunnel there). */
  hypervisors: Record<string, TunnelDefinition | undefined>;
}

/**
 * `libvirt_tunnel`: this hypervisor's cluster bridge is joined to the other hypervisors' by a
 * VXLAN device (see provider/libvirt/tunnel.ts). Recorded in the state before it is made; a
 * resumed run finds it and adds only what is missing. Reports each peer's resolved address.
 */
export const libvirtTunnelModule: Module<TunnelArgs> = {
  name: 'libvirt_tunnel',
  os: 'linux',
  parseArgs(raw: RawArgs) {
    return {
      ...parseCommon('libvirt_tunnel', raw, ['hypervisors']),
      hypervisors: raw['hypervisors'] as TunnelArgs['hypervisors'],
    };
  },
  *run(args, context): ModuleRun {
    const tunnel = forThisHypervisor<TunnelDefinition>('libvirt_tunnel', args.hypervisors, context);
    if (!tunnel) return { changed: false, failed: false, msg: 'no tunnel here' };
    const details = { bridge: tunnel.bridge, vni: String(tunnel.vni), port: String(tunnel.port) };
    const intent = yield {
      kind: 'record',
      update: { resources: [resource(context, 'tunnel', tunnel.device, 'intended', details)] },
    };
    if (intent.failed) return { changed: false, failed: true, msg: intent.stderr };
    const made = yield { kind: 'exec', command: tunnelScript(tunnel) };
    if (made.failed)
      return { changed: true, failed: true, msg: `cannot make the tunnel ${tunnel.device}: ${reason(made)}` };
    yield {
      kind: 'record',
      update: { resources: [resource(context, 'tunnel', tunnel.device, 'created', details)] },
    };
    const peers = Object.fromEntries(
      outputLines(made)
        .filter((line) => line.startsWith('peer '))
        .map((line) => line.split(' ').slice(1) as [string, string]),
    );
    return { changed: true, failed: false, data: { device: tunnel.device, vni: tunnel.vni, peers } };
  },
};

/** A libvirt_tunnel plan step. */
export const libvirtTunnelStep = stepBuilder(libvirtTunnelModule);
