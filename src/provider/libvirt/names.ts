import { createHash } from 'node:crypto';

/**
 * Every libvirt resource kubemix makes for cluster C is named `C.<something>`: cluster names are
 * DNS labels (no dots), so `lab.` can never be the prefix of another cluster's names (`lab-2.`),
 * and a leak check can find everything of one cluster by name. What exists once per hypervisor
 * (the network, its bridge, the tunnel device) also carries the hypervisor's name, so two
 * hypervisors sharing one libvirt or one host never take each other's. Linux interface names are
 * limited to 15 characters (IFNAMSIZ), so bridges and tunnel devices carry a digest instead.
 */

/** The libvirt domain of a node. */
export const domainName = (cluster: string, node: string) => `${cluster}.${node}`;
/** The guest network on one hypervisor. */
export const networkName = (cluster: string, hypervisor: string) => `${cluster}.${hypervisor}.network`;
/** The storage volume of a node's disk or config ISO (`disk`, `seed`...), in the pool. */
export const volumeName = (cluster: string, node: string, what: string, extension: string) =>
  `${cluster}.${node}.${what}.${extension}`;
/** Prefix of every domain and volume name of the cluster. */
export const clusterPrefix = (cluster: string) => `${cluster}.`;

const digest = (text: string) => createHash('sha256').update(text).digest('hex');

/** The network's bridge on one hypervisor: `kmxv` + 8 hex digits of a SHA-256 (12 characters). */
export const bridgeName = (cluster: string, hypervisor: string) =>
  `kmxv${digest(`${cluster}/${hypervisor}`).slice(0, 8)}`;

/** The VXLAN device joining a hypervisor's bridge to the other hypervisors': `kmxt` + 8 hex digits. */
export const tunnelName = (cluster: string, hypervisor: string) =>
  `kmxt${digest(`${cluster}/${hypervisor}`).slice(0, 8)}`;

/** Lowest VNI kubemix derives: above flannel's 4096 and the small numbers people pick by hand. */
const FIRST_DERIVED_VNI = 100_000;

/**
 * The cluster's VXLAN network identifier between hypervisors when the spec gives none: derived
 * from the cluster name, so every hypervisor and every run agree, in 100000..16099999 (VNIs are
 * 24 bits). prepare-provider refuses one another VXLAN device on the hypervisor already uses.
 */
export const tunnelVni = (cluster: string) =>
  FIRST_DERIVED_VNI + (Number.parseInt(digest(`vni/${cluster}`).slice(0, 8), 16) % 16_000_000);

/**
 * A stable MAC for a node, in QEMU's locally administered 52:54:00 range: the DHCP reservation
 * and the domain agree on it before the guest exists.
 */
export function macAddress(cluster: string, node: string): string {
  const bytes = digest(`${cluster}/${node}`).slice(0, 6).match(/../g) as string[];
  return ['52', '54', '00', ...bytes].join(':');
}

/** Directory for a cluster's files on a hypervisor (config ISO sources, console logs, domain XML). */
export const clusterFilesDir = (dataDir: string, cluster: string) => `${dataDir}/clusters/${cluster}`;
/** Directory of kubemix's storage pool on a hypervisor. */
export const poolDir = (dataDir: string) => `${dataDir}/pool`;
