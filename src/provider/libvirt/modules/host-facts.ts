import { parseCidr } from '../../../spec/cidr.js';

/** `virsh version` → library and hypervisor versions. */
export function parseVirshVersion(stdout: string): { libvirt?: string; hypervisor?: string } {
  const libvirt = /Using library: libvirt ([\d.]+)/.exec(stdout)?.[1];
  const hypervisor = /Running hypervisor: (\S+ [\d.]+)/.exec(stdout)?.[1];
  return { ...(libvirt ? { libvirt } : {}), ...(hypervisor ? { hypervisor } : {}) };
}

/** An IPv4 range something already uses on the hypervisor. */
export interface UsedRange {
  cidr: string;
  /** What uses it: `libvirt network X`, `route via dev Y`. */
  owner: string;
}

/** Prefix length of a dotted netmask (255.255.255.0 → 24). */
function prefixOf(netmask: string): number | undefined {
  const bits = netmask
    .split('.')
    .map((o) => Number(o).toString(2).padStart(8, '0'))
    .join('');
  return /^1*0*$/.test(bits) ? (bits.indexOf('0') === -1 ? 32 : bits.indexOf('0')) : undefined;
}

/**
 * The IPv4 ranges of libvirt networks, from `== NAME` headers each followed by that network's
 * `virsh net-dumpxml` (libvirt formatnetwork.html: `<ip address=... netmask=...|prefix=...>`).
 */
export function parseNetworkRanges(stdout: string): UsedRange[] {
  const ranges: UsedRange[] = [];
  for (const section of stdout.split(/^== /m).slice(1)) {
    const name = section.slice(0, section.indexOf('\n')).trim();
    for (const ip of section.matchAll(/<ip\b([^>]*)>/g)) {
      const attrs = ip[1] ?? '';
      const address = /address=['"]([\d.]+)['"]/.exec(attrs)?.[1];
      if (!address || /family=['"]ipv6['"]/.test(attrs)) continue;
      const prefixText = /prefix=['"](\d+)['"]/.exec(attrs)?.[1];
      const netmask = /netmask=['"]([\d.]+)['"]/.exec(attrs)?.[1];
      const prefix = prefixText !== undefined ? Number(prefixText) : netmask ? prefixOf(netmask) : 24;
      if (prefix === undefined) continue;
      const parsed = parseCidr(`${address}/${prefix}`);
      if (parsed)
        ranges.push({
          cidr: `${address}/${prefix}`,
          owner: `libvirt network ${name} (${address}/${prefix})`,
        });
    }
  }
  return ranges;
}

/** Routes with a destination range (`ip -4 -o route show`), except the default route. */
export function parseRoutes(stdout: string): Array<UsedRange & { device: string }> {
  return stdout
    .split('\n')
    .map((line) => /^(\d+\.\d+\.\d+\.\d+(?:\/\d+)?)\s.*\bdev (\S+)/.exec(line.trim()))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => {
      const cidr = m[1]!.includes('/') ? m[1]! : `${m[1]}/32`;
      return { cidr, device: m[2]!, owner: `the route to ${cidr} (dev ${m[2]})` };
    });
}

/** `key value` lines → a map (the preflight's resource facts). */
export function parseFacts(stdout: string): Map<string, string> {
  const facts = new Map<string, string>();
  for (const line of stdout.split('\n')) {
    const cut = line.indexOf(' ');
    if (cut > 0) facts.set(line.slice(0, cut), line.slice(cut + 1).trim());
  }
  return facts;
}
