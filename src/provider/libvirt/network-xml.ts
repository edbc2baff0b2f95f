import { addressInCidr, parseCidr } from '../../spec/cidr.js';
import { toXml } from './xml.js';

/** A DHCP reservation: this MAC always gets this address and name (dnsmasq also answers the name). */
export interface Reservation {
  mac: string;
  ip: string;
  hostname: string;
}

export interface NetworkDefinition {
  name: string;
  bridge: string;
  /** The guests' network, e.g. 10.0.0.0/24: the gateway is its first address. */
  cidr: string;
  /** DNS domain dnsmasq serves the guests' names under. */
  dnsDomain: string;
  reservations: Reservation[];
}

/**
 * The libvirt network XML (libvirt formatnetwork.html): NAT to the outside, a bridge named by
 * kubemix, dnsmasq DHCP with only reservations (no dynamic range: every guest is known before it
 * boots) and DNS names for every node under `dnsDomain` (localOnly: not forwarded upstream).
 */
export function networkXml(network: NetworkDefinition): string {
  const parsed = parseCidr(network.cidr);
  if (!parsed) throw new TypeError(`not a CIDR: ${network.cidr}`);
  return toXml('network', {
    name: network.name,
    forward: { '@mode': 'nat' },
    bridge: { '@name': network.bridge, '@stp': 'on', '@delay': 0 },
    domain: { '@name': network.dnsDomain, '@localOnly': 'yes' },
    ip: {
      '@address': addressInCidr(network.cidr, 1),
      '@prefix': parsed.prefix,
      dhcp: {
        host: network.reservations.map((r) => ({ '@mac': r.mac, '@name': r.hostname, '@ip': r.ip })),
      },
    },
  });
}
