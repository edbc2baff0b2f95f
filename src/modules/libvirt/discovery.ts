import { shQuote } from '../../quote/index.js';
import { addressInCidr, parseCidr } from '../../spec/cidr.js';
import type { CommandResult } from '../../types/command-result.js';
import { type RawArgs, requireString } from '../args.js';
import { type LibvirtCommon, outputLines, parseCommon, virsh } from './common.js';

/** The names by which everything of one cluster on a hypervisor can be found. */
export interface ClusterNames extends LibvirtCommon {
  network: string;
  bridge: string;
  cidr: string;
}

export function parseClusterNames(module: string, raw: RawArgs, known: readonly string[] = []): ClusterNames {
  return {
    ...parseCommon(module, raw, ['network', 'bridge', 'cidr', ...known]),
    network: requireString(module, raw, 'network'),
    bridge: requireString(module, raw, 'bridge'),
    cidr: requireString(module, raw, 'cidr'),
  };
}

/** Something of the cluster found on a hypervisor. */
export interface Found {
  kind: 'domain' | 'volume' | 'network' | 'bridge' | 'dnsmasq' | 'file' | 'firewall';
  name: string;
}

/** The network as libvirt writes it in firewall rules: network address / prefix. */
function canonicalCidr(cidr: string): string {
  const parsed = parseCidr(cidr);
  return parsed ? `${addressInCidr(cidr, 0)}/${parsed.prefix}` : cidr;
}

/**
 * A read-only script that prints one `<kind> <name>` line for everything of the cluster that
 * exists: domains and volumes named `<cluster>.*`, the network, its bridge, its dnsmasq, the files
 * kubemix and libvirt write for them, and firewall rules (iptables, nftables) naming the bridge or
 * the network. Rules are compared, not tables: the first libvirt network start creates empty
 * built-in tables that stay (RESEARCH.md), and they are no leak.
 */
export function discoveryScript(names: ClusterNames): string {
  const prefix = `${names.cluster}.`;
  const glob = (dir: string, stem: string) => `${shQuote(`${dir}/${stem}`)}*`;
  const files = [
    shQuote(`${names.dataDir}/clusters/${names.cluster}`),
    glob('/var/lib/libvirt/dnsmasq', `${names.network}.`),
    glob('/var/lib/libvirt/dnsmasq', `${names.bridge}.`),
    glob('/run/libvirt/network', `${names.network}.`),
    shQuote(`/run/libvirt/network/${names.network}`),
    glob('/var/log/libvirt/qemu', prefix),
    glob('/etc/libvirt/qemu', prefix),
    glob('/run/libvirt/qemu', prefix),
    shQuote(`/etc/libvirt/qemu/networks/${names.network}.xml`),
    shQuote(`/etc/libvirt/qemu/networks/autostart/${names.network}.xml`),
  ];
  const rules = `grep -F -e ${shQuote(names.bridge)} -e ${shQuote(canonicalCidr(names.cidr))}`;
  return [
    `${virsh(names.uri, 'list', '--all', '--name')} | awk -v p=${shQuote(prefix)} 'index($0, p) == 1 {print "domain " $0}'`,
    `if ${virsh(names.uri, 'pool-info', names.pool)} >/dev/null 2>&1; then ${virsh(names.uri, 'vol-list', '--pool', names.pool)} | awk -v p=${shQuote(prefix)} 'index($1, p) == 1 {print "volume " $1}'; fi`,
    `${virsh(names.uri, 'net-list', '--all', '--name')} | awk -v n=${shQuote(names.network)} '$0 == n {print "network " $0}'`,
    `if ip -o link show dev ${shQuote(names.bridge)} >/dev/null 2>&1; then echo bridge ${shQuote(names.bridge)}; fi`,
    `ps -eo pid=,args= | grep -F dnsmasq | grep -F -- ${shQuote(`/${names.network}.conf`)} | grep -v -F grep | awk '{print "dnsmasq pid " $1}'`,
    `for f in ${files.join(' ')}; do if [ -e "$f" ]; then echo "file $f"; fi; done`,
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
