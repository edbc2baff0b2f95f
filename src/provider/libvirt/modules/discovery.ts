import { type RawArgs, requireString } from '../../../modules/args.js';
import type { ModuleContext } from '../../../modules/types.js';
import { shQuote } from '../../../quote/index.js';
import { addressInCidr, parseCidr } from '../../../spec/cidr.js';
import type { CommandResult } from '../../../types/command-result.js';
import { clusterPartialsPattern } from '../windows/golden-cache.js';
import {
  forThisHypervisor,
  type LibvirtCommon,
  outputLines,
  parseCommon,
  poolPathAssignment,
  virsh,
} from './common.js';

/** What a hypervisor holds once per cluster: its network, the network's bridge, the tunnel device. */
export interface HypervisorNames {
  network: string;
  bridge: string;
  tunnel: string;
}

/** The arguments by which everything of one cluster on the hypervisors can be found. */
export interface ClusterNamesArgs extends LibvirtCommon {
  cidr: string;
  /** HypervisorNames by hypervisor name (absent: none). */
  hypervisors: Record<string, HypervisorNames>;
}

/** The names by which everything of one cluster on this hypervisor can be found. */
export type ClusterNames = LibvirtCommon & { cidr: string } & Partial<HypervisorNames>;

export function parseClusterNames(
  module: string,
  raw: RawArgs,
  known: readonly string[] = [],
): ClusterNamesArgs {
  return {
    ...parseCommon(module, raw, ['cidr', 'hypervisors', ...known]),
    cidr: requireString(module, raw, 'cidr'),
    hypervisors: (raw['hypervisors'] ?? {}) as ClusterNamesArgs['hypervisors'],
  };
}

/** The names for the hypervisor the module runs on (none for a hypervisor the spec no longer lists). */
export function namesHere(module: string, args: ClusterNamesArgs, context: ModuleContext): ClusterNames {
  const { hypervisors: _all, ...common } = args;
  return { ...common, ...forThisHypervisor<HypervisorNames>(module, args.hypervisors, context) };
}

/** Something of the cluster found on a hypervisor. */
export interface Found {
  kind: 'domain' | 'volume' | 'network' | 'bridge' | 'tunnel' | 'dnsmasq' | 'file' | 'firewall';
  name: string;
}

/** The network as libvirt writes it in firewall rules: network address / prefix. */
function canonicalCidr(cidr: string): string {
  const parsed = parseCidr(cidr);
  return parsed ? `${addressInCidr(cidr, 0)}/${parsed.prefix}` : cidr;
}

/**
 * A read-only script that prints one `<kind> <name>` line for everything of the cluster that
 * exists on one hypervisor: domains and volumes named `<cluster>.*`, its network, the network's
 * bridge, the tunnel device, dnsmasq, the files kubemix and libvirt write for them (and a golden
 * image capture's partial file in the pool), and firewall
 * rules (iptables, nftables) naming the bridge, the tunnel or the network. Rules are compared, not tables: the first libvirt network start creates empty
 * built-in tables that stay (RESEARCH.md), and they are no leak.
 */
export function discoveryScript(names: ClusterNames): string {
  const prefix = `${names.cluster}.`;
  const glob = (dir: string, stem: string) => `${shQuote(`${dir}/${stem}`)}*`;
  const network = names.network;
  const files = [
    shQuote(`${names.dataDir}/clusters/${names.cluster}`),
    glob('/var/log/libvirt/qemu', prefix),
    glob('/etc/libvirt/qemu', prefix),
    glob('/run/libvirt/qemu', prefix),
    ...(network
      ? [
          glob('/var/lib/libvirt/dnsmasq', `${network}.`),
          glob('/run/libvirt/network', `${network}.`),
          shQuote(`/run/libvirt/network/${network}`),
          shQuote(`/etc/libvirt/qemu/networks/${network}.xml`),
          shQuote(`/etc/libvirt/qemu/networks/autostart/${network}.xml`),
        ]
      : []),
    ...(names.bridge ? [glob('/var/lib/libvirt/dnsmasq', `${names.bridge}.`)] : []),
  ];
  const words = [names.bridge, names.tunnel].filter((w): w is string => w !== undefined);
  const rules = `grep -F ${[...words, canonicalCidr(names.cidr)].map((w) => `-e ${shQuote(w)}`).join(' ')}`;
  const link = (kind: string, name: string | undefined) =>
    name
      ? [`if ip -o link show dev ${shQuote(name)} >/dev/null 2>&1; then echo ${kind} ${shQuote(name)}; fi`]
      : [];
  return [
    `${virsh(names.uri, 'list', '--all', '--name')} | awk -v p=${shQuote(prefix)} 'index($0, p) == 1 {print "domain " $0}'`,
    `if ${virsh(names.uri, 'pool-info', names.pool)} >/dev/null 2>&1; then ${virsh(names.uri, 'vol-list', '--pool', names.pool)} | awk -v p=${shQuote(prefix)} 'index($1, p) == 1 {print "volume " $1}'; fi`,
    ...(network
      ? [
          `${virsh(names.uri, 'net-list', '--all', '--name')} | awk -v n=${shQuote(network)} '$0 == n {print "network " $0}'`,
          `ps -eo pid=,args= | grep -F dnsmasq | grep -F -- ${shQuote(`/${network}.conf`)} | grep -v -F grep | awk '{print "dnsmasq pid " $1}'`,
        ]
      : []),
    ...link('bridge', names.bridge),
    ...link('tunnel', names.tunnel),
    `for f in ${files.join(' ')}; do if [ -e "$f" ]; then echo "file $f"; fi; done`,
    // A golden image capture the cluster began and never linked into place (golden-cache.ts).
    poolPathAssignment('pool_path', names.uri, names.pool),
    `if [ -n "$pool_path" ]; then for f in "$pool_path"/${clusterPartialsPattern(names.cluster)}; do if [ -e "$f" ]; then echo "file $f"; fi; done; fi`,
    `if command -v iptables-save >/dev/null 2>&1; then iptables-save 2>/dev/null | ${rules} | sed 's/^/firewall iptables: /'; fi`,
    `if command -v nft >/dev/null 2>&1; then nft list ruleset 2>/dev/null | ${rules} | sed 's/^[[:space:]]*/firewall nftables: /'; fi`,
    'true',
  ].join('\n');
}

/** Parses {@link discoveryScript}'s output. */
export function parseFound(result: CommandResult): Found[] {
  return outputLines(result).map((line) => {
    const cut = line.indexOf(' ');
    return { kind: line.slice(0, cut) as Found['kind'], name: line.slice(cut + 1) };
  });
}
