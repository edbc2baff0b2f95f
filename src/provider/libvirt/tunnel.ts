import { shQuote } from '../../quote/index.js';

/**
 * The tunnel that makes the cluster network one L2 across hypervisors: on each hypervisor a VXLAN
 * device attached to its cluster bridge, flooding broadcast and unknown traffic to every other
 * hypervisor (head-end replication) and learning where each guest MAC lives. VXLAN rather than
 * GRE: UDP passes the NAT and firewalls between hypervisors that drop IP protocol 47, and a GRE
 * tap needs the ip_gre module that not every kernel has (this project's test machines have none).
 *
 * iproute2, ip-link(8) "VXLAN Type Support": `ip link add DEVICE type vxlan id VNI dstport PORT`
 * (no `remote` and no `group`: peers come from the forwarding database); bridge(8) "bridge fdb
 * append": an all-zeros MAC entry per peer makes the VXLAN driver send a copy of broadcast and
 * unknown frames to each (Linux Documentation/networking/vxlan.rst shows the same forwarding
 * entries). The port is never 4789: the guests' own flannel VXLAN uses it (and Linux binds one
 * socket per port and VNI per network namespace).
 */
export interface TunnelDefinition {
  /** VXLAN device, `kmxt` + digest (tunnelName). */
  device: string;
  /** The hypervisor's cluster bridge the device joins. */
  bridge: string;
  vni: number;
  /** UDP port between hypervisors (provider.tunnel.port). */
  port: number;
  /** The other hypervisors that get guests: their addresses (IP or DNS name, resolved on this hypervisor). */
  peers: string[];
  /** The device's MTU: the guests' MTU, so frames fit a 1500-byte underlay with VXLAN's 50 bytes. */
  mtu: number;
}

/** VXLAN over IPv4 adds 50 bytes (outer Ethernet 14, IPv4 20, UDP 8, VXLAN 8). */
export const VXLAN_OVERHEAD = 50;
/** The guests' MTU on a network spanning hypervisors, for an underlay MTU of 1500. */
export const TUNNEL_GUEST_MTU = 1500 - VXLAN_OVERHEAD;

/**
 * A POSIX shell script that makes the tunnel on one hypervisor, idempotently (a resumed run finds
 * the device and the entries made): the VXLAN device (refusing one of that name with another VNI
 * or port), its MTU, its bridge, up, and a flood entry per peer. Prints each peer's address.
 */
export function tunnelScript(tunnel: TunnelDefinition): string {
  const dev = shQuote(tunnel.device);
  return [
    'set -e',
    `if ip -d -o link show dev ${dev} >/dev/null 2>&1; then`,
    `  ip -d -o link show dev ${dev} | grep -q ${shQuote(`vxlan id ${tunnel.vni} `)} || { echo ${shQuote(`${tunnel.device} exists with another VNI`)} >&2; exit 1; }`,
    `  ip -d -o link show dev ${dev} | grep -q ${shQuote(`dstport ${tunnel.port} `)} || { echo ${shQuote(`${tunnel.device} exists with another port`)} >&2; exit 1; }`,
    'else',
    `  ip link add ${dev} type vxlan id ${tunnel.vni} dstport ${tunnel.port}`,
    'fi',
    `ip link set dev ${dev} mtu ${tunnel.mtu}`,
    `ip link set dev ${dev} master ${shQuote(tunnel.bridge)}`,
    `ip link set dev ${dev} up`,
    ...tunnel.peers.flatMap((peer) => [
      `addr=$(getent ahostsv4 ${shQuote(peer)} | awk 'NR == 1 {print $1}')`,
      `[ -n "$addr" ] || { echo ${shQuote(`cannot resolve the hypervisor ${peer}`)} >&2; exit 1; }`,
      `if ! bridge fdb show dev ${dev} | grep -q "^00:00:00:00:00:00 dst $addr "; then bridge fdb append 00:00:00:00:00:00 dev ${dev} dst "$addr"; fi`,
      `echo peer ${shQuote(peer)} "$addr"`,
    ]),
  ].join('\n');
}

/** Removes the tunnel device when it exists (its forwarding entries go with it). */
export const removeTunnelScript = (device: string) =>
  `if ip -o link show dev ${shQuote(device)} >/dev/null 2>&1; then ip link delete dev ${shQuote(device)}; fi`;
