import { createHash } from 'node:crypto';

/**
 * Every libvirt resource kubemix makes for cluster C is named `C.<something>`: cluster names are
 * DNS labels (no dots), so `lab.` can never be the prefix of another cluster's names (`lab-2.`),
 * and a leak check can find everything of one cluster by name. Linux bridge names are limited to
 * 15 characters (IFNAMSIZ), so the bridge carries a digest of the cluster name instead.
 */

/** The libvirt domain of a node. */
export const domainName = (cluster: string, node: string) => `${cluster}.${node}`;
/** The guest network. */
export const networkName = (cluster: string) => `${cluster}.network`;
/** The storage volume of a node's disk or config ISO (`disk`, `seed`...), in the pool. */
export const volumeName = (cluster: string, node: string, what: string, extension: string) =>
  `${cluster}.${node}.${what}.${extension}`;
/** Prefix of every domain and volume name of the cluster. */
export const clusterPrefix = (cluster: string) => `${cluster}.`;

const digest = (text: string) => createHash('sha256').update(text).digest('hex');

/** The network's bridge: `kmxv` + 8 hex digits of the cluster name's SHA-256 (12 characters). */
export const bridgeName = (cluster: string) => `kmxv${digest(cluster).slice(0, 8)}`;

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
