import type { RawArgs } from '../../../modules/args.js';
import { stepBuilder } from '../../../modules/step-builder.js';
import type { Module, ModuleRun } from '../../../modules/types.js';
import { shQuote } from '../../../quote/index.js';
import { clusterFilesDir } from '../names.js';
import { type NetworkDefinition, networkXml } from '../network-xml.js';
import { forThisHypervisor, type LibvirtCommon, parseCommon, reason, resource, virsh } from './common.js';

/** libvirt_network's arguments (the plan's and the module's one type). */
export interface NetworkArgs extends LibvirtCommon {
  /** Each hypervisor's network, by hypervisor name. */
  hypervisors: Record<string, NetworkDefinition>;
}

/** libvirt's dnsmasq state directory (Debian's and upstream's default localstatedir). */
export const LIBVIRT_DNSMASQ_DIR = '/var/lib/libvirt/dnsmasq';

/** Makes a directory with the mode libvirt's QEMU user needs to reach files in it (traverse only). */
export const makeDirScript = (dir: string) => `mkdir -p ${shQuote(dir)} && chmod 0711 ${shQuote(dir)}`;

/**
 * `libvirt_network`: the cluster's NAT network (DHCP reservations, DNS names) is defined and
 * running on this hypervisor. Records the cluster's file directory and the network in the state
 * before making them; an existing network of the cluster (a resumed run) is reused.
 */
export const libvirtNetworkModule: Module<NetworkArgs> = {
  name: 'libvirt_network',
  os: 'linux',
  parseArgs(raw: RawArgs) {
    return {
      ...parseCommon('libvirt_network', raw, ['hypervisors']),
      hypervisors: raw['hypervisors'] as NetworkArgs['hypervisors'],
    };
  },
  *run(args, context): ModuleRun {
    const network = forThisHypervisor<NetworkDefinition>('libvirt_network', args.hypervisors, context);
    if (!network) return { changed: false, failed: false, msg: 'no guests placed here' };
    const dir = clusterFilesDir(args.dataDir, args.cluster);
    const details = { bridge: network.bridge, cidr: network.cidr };
    const intent = yield {
      kind: 'record',
      update: {
        resources: [
          resource(context, 'directory', dir, 'intended'),
          resource(context, 'network', network.name, 'intended', details),
        ],
      },
    };
    if (intent.failed) return { changed: false, failed: true, msg: intent.stderr };

    const made = yield {
      kind: 'exec',
      command: [
        `${makeDirScript(`${args.dataDir}/clusters`)} && ${makeDirScript(dir)}`,
        // libvirt writes every network's MAC map to its dnsmasq directory when a guest joins, but
        // makes that directory only when it runs a dnsmasq (src/network/bridge_driver.c,
        // networkStartDhcpDaemon): on a hypervisor whose only network is a bridged one it may be
        // missing, and the guest fails to start. Made as libvirt would make it.
        ...(network.role === 'bridged' ? [`mkdir -p ${shQuote(LIBVIRT_DNSMASQ_DIR)}`] : []),
      ].join(' && '),
    };
    if (made.failed) return { changed: false, failed: true, msg: `cannot make ${dir}: ${reason(made)}` };
    yield { kind: 'record', update: { resources: [resource(context, 'directory', dir, 'created')] } };

    let changed = false;
    const info = yield { kind: 'exec', command: virsh(args.uri, 'net-info', network.name) };
    if (info.failed) {
      const file = `${dir}/network.xml`;
      const written = yield { kind: 'put', remotePath: file, content: networkXml(network), mode: 0o644 };
      if (written.failed) return { changed, failed: true, msg: `cannot write ${file}: ${reason(written)}` };
      const defined = yield { kind: 'exec', command: virsh(args.uri, 'net-define', file) };
      if (defined.failed)
        return { changed, failed: true, msg: `cannot define network ${network.name}: ${reason(defined)}` };
      changed = true;
    }
    if (!/^Active:\s+yes/m.test(info.stdout)) {
      const started = yield { kind: 'exec', command: virsh(args.uri, 'net-start', network.name) };
      if (started.failed)
        return { changed, failed: true, msg: `cannot start network ${network.name}: ${reason(started)}` };
      changed = true;
    }
    yield {
      kind: 'record',
      update: { resources: [resource(context, 'network', network.name, 'created', details)] },
    };
    return { changed, failed: false, data: { network: network.name, bridge: network.bridge } };
  },
};

/** A libvirt_network plan step. */
export const libvirtNetworkStep = stepBuilder(libvirtNetworkModule);
