import type { HostOs } from '../../types/inventory.js';
import type { GuestDefinition } from './guest.js';
import type { CachedImage } from './image.js';
import { linuxGuest } from './linux-guest.js';

/** What every guest builder is given: the node, where it runs, its network identity, the images. */
export interface GuestInput {
  cluster: string;
  node: string;
  hypervisor: string;
  vcpus: number;
  memoryMiB: number;
  diskGiB: number;
  ip: string;
  mac: string;
  /** libvirt network name. */
  network: string;
  /** DNS domain of the cluster network. */
  dnsDomain: string;
  /** kubemix's directory on the hypervisor. */
  dataDir: string;
  /** The cluster's SSH public key. */
  publicKey: string;
  images: { linux?: CachedImage; windows?: CachedImage; virtio?: CachedImage };
}

/** Turns a node into a guest definition: disks, CD-ROMs, first-boot configuration, machine type. */
export type GuestBuilder = (input: GuestInput) => GuestDefinition;

/**
 * The per-OS guest builders. Windows guests (Autounattend on a config CD-ROM, the Server ISO
 * and virtio-win, q35 with Hyper-V enlightenments) plug in here; until then a cluster with
 * Windows guests plans create-hosts as not implemented.
 */
export const GUEST_BUILDERS: Readonly<Record<HostOs, GuestBuilder | undefined>> = {
  linux: linuxGuest,
  windows: undefined,
};
