import { parseCidr } from '../../spec/cidr.js';
import { toXml, type XmlNode } from './xml.js';

/** A DHCP reservation: this MAC always gets this address and name (dnsmasq also answers the name). */
export interface Reservation {
  mac: string;
  ip: string;
  hostname: string;
}

/** The cluster network on one hypervisor. */
export interface NetworkDefinition {
  name: string;
  bridge: string;
  /** The guests' network, e.g. 10.0.0.0/24: the gateway is its first address. */
  cidr: string;
  /** DNS domain dnsmasq serves the guests' names under. */
  dnsDomain: string;
  /**
   * `gateway`: the one hypervisor whose bridge holds the gateway address (the network's first),
   * NATs the guests out and runs DHCP (a reservation for every node of the cluster, wherever it
   * runs) and DNS. `bridged`: another hypervisor's bridge, without DHCP, DNS or NAT: its guests
   * reach the gateway's across the tunnel, on the same L2.
   */
  role: 'gateway' | 'bridged';
  /** The hypervisor's own address on the network (gateway: the first; bridged: the next ones). */
  address: string;
  /** Reservations of every node (gateway); empty on bridged networks. */
  reservations: Reservation[];
  /** Guest MTU when the L2 spans hypervisors through the tunnel (VXLAN takes 50 bytes). */
  mtu?: number;
}

/**
 * The libvirt network XML (libvirt formatnetwork.html). The gateway network: NAT to the outside,
 * a bridge named by kubemix, dnsmasq DHCP with only reservations (no dynamic range: every guest
 * is known before it boots) and DNS names for every node under `dnsDomain` (localOnly: not
 * forwarded upstream). A bridged network: an isolated one (no `<forward>`) whose bridge has the
 * hypervisor's address, so it reaches the guests (the Windows install wait asks their port), with
 * DNS off and no DHCP, so libvirt starts no dnsmasq there. With `mtu`, libvirt sets it on the
 * bridge and the guests' tap devices and dnsmasq announces it by DHCP (libvirt
 * src/network/bridge_driver.c: "Configure DHCP to tell clients about the MTU",
 * `dhcp-option=option:mtu`). That alone left the two-hypervisor e2e's test guest at 1500 (also
 * with `mtu: 1450` in its cloud-init network config): the guests' NICs get the MTU from their
 * domain XML's `<interface>` (domain-xml.ts).
 */
export function networkXml(network: NetworkDefinition): string {
  const parsed = parseCidr(network.cidr);
  if (!parsed) throw new TypeError(`not a CIDR: ${network.cidr}`);
  const node: XmlNode = { name: network.name };
  if (network.role === 'gateway') node['forward'] = { '@mode': 'nat' };
  node['bridge'] = { '@name': network.bridge, '@stp': 'on', '@delay': 0 };
  if (network.mtu !== undefined) node['mtu'] = { '@size': network.mtu };
  if (network.role === 'gateway') {
    node['domain'] = { '@name': network.dnsDomain, '@localOnly': 'yes' };
    node['ip'] = {
      '@address': network.address,
      '@prefix': parsed.prefix,
      dhcp: {
        host: network.reservations.map((r) => ({ '@mac': r.mac, '@name': r.hostname, '@ip': r.ip })),
      },
    };
  } else {
    node['dns'] = { '@enable': 'no' };
    node['ip'] = { '@address': network.address, '@prefix': parsed.prefix };
  }
  return toXml('network', node);
}
