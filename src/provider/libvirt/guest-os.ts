import type { ConnectionKind, HostOs } from '../../types/inventory.js';
import type { WindowsVersion } from '../../types/windows.js';
import type { GuestDefinition } from './guest.js';
import type { CachedImage } from './image.js';
import { linuxGuest } from './linux-guest.js';
import { windowsGuest } from './windows-guest.js';

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
  /** The network's MTU when it is not the default 1500: a network spanning hypervisors through the tunnel. */
  mtu?: number;
  /** DNS domain of the cluster network. */
  dnsDomain: string;
  /** kubemix's directory on the hypervisor. */
  dataDir: string;
  /** The cluster's SSH public key. */
  publicKey: string;
  /** How kubemix connects to the guest (Windows over SSH gets OpenSSH with the cluster key). */
  connection: ConnectionKind;
  images: { linux?: CachedImage; windows?: CachedImage; virtio?: CachedImage };
  /** Windows guests: the Server version and the computer name (<= 15 characters, see windows/computer-name.ts). */
  windows?: { version: WindowsVersion; computerName: string };
}

/** Turns a node into a guest definition: disks, CD-ROMs, first-boot configuration, machine type. */
export type GuestBuilder = (input: GuestInput) => GuestDefinition;

/** The per-OS guest builders. */
export const GUEST_BUILDERS: Readonly<Record<HostOs, GuestBuilder>> = {
  linux: linuxGuest,
  windows: windowsGuest,
};
