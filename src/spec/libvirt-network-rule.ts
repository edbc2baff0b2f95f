import { parseCidr } from './cidr.js';
import type { CrossFieldRule } from './rule-helpers.js';
import { DEFAULT_LIBVIRT_CIDR, LIBVIRT_FIRST_GUEST_OFFSET } from './spec-defaults.js';
import type { RuleIssue, SpecView } from './spec-view.js';

/** Host addresses kept below the guests' for the hypervisors' bridges (gateway first). */
const BRIDGE_ADDRESSES = LIBVIRT_FIRST_GUEST_OFFSET - 1;

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/** How many guests the spec asks for: controllers (1 unless written) and every worker group's count. */
export function libvirtGuestCount(spec: SpecView): number {
  const count = (n: number | undefined, fallback: number) =>
    n !== undefined && Number.isInteger(n) && n >= 0 ? n : fallback;
  return spec.workers.reduce((sum, g) => sum + count(g.count, 0), count(spec.controlPlane.count, 1));
}

/** Host addresses of an IPv4 prefix: all but the network and broadcast addresses. */
export function usableAddresses(prefix: number): number {
  return Math.max(0, 2 ** (32 - prefix) - 2);
}

/** The longest prefix whose network holds `needed` host addresses. */
function smallestPrefixFor(needed: number): number {
  let prefix = 30;
  while (prefix > 0 && usableAddresses(prefix) < needed) prefix--;
  return prefix;
}

/**
 * The libvirt guest network holds every address kubemix hands out in it (src/provider/libvirt/layout.ts):
 * the first {@link BRIDGE_ADDRESSES} host addresses for the hypervisors' bridges (the gateway's
 * first), then one DHCP reservation per guest, on the gateway's network, wherever the guest runs.
 * A smaller network would give guests addresses outside it. At most {@link BRIDGE_ADDRESSES}
 * hypervisors get guests (guests are placed round-robin, so as many as there are guests).
 */
export const libvirtNetworkSizeRule: CrossFieldRule = (spec) => {
  if (spec.provider.type !== 'libvirt') return [];
  const issues: RuleIssue[] = [];
  const guests = libvirtGuestCount(spec);
  const written = spec.provider.networkCIDR;
  const cidr = written ?? DEFAULT_LIBVIRT_CIDR;
  const parsed = parseCidr(cidr);
  const needed = BRIDGE_ADDRESSES + guests;
  // A malformed range is the schema's to report.
  if (parsed && usableAddresses(parsed.prefix) < needed)
    issues.push({
      path: ['provider', 'network', 'cidr'],
      message: `${cidr}${written === undefined ? ' (the default)' : ''} is too small for ${plural(guests, 'guest')}: kubemix gives the hypervisors' bridges its first ${BRIDGE_ADDRESSES} host addresses and each guest one after them, so it needs ${needed} host addresses (a /${smallestPrefixFor(needed)} or larger); a /${parsed.prefix} has ${usableAddresses(parsed.prefix)}`,
    });
  const withGuests = Math.min(spec.provider.hypervisors.length, guests);
  if (withGuests > BRIDGE_ADDRESSES)
    issues.push({
      path: ['provider', 'hypervisors'],
      message: `${plural(spec.provider.hypervisors.length, 'hypervisor')} would get guests; kubemix joins at most ${BRIDGE_ADDRESSES} (each takes one of the ${BRIDGE_ADDRESSES} addresses of the guest network below the guests')`,
    });
  return issues;
};
