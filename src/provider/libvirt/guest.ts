import type { HostOs } from '../../types/inventory.js';
import type { CachedImage } from './image.js';

/**
 * How a guest disk or CD-ROM comes to be. The per-OS builders (linux-guest.ts; Windows next)
 * choose these; the create-hosts module makes each kind the same way for every OS.
 */
export type DiskSource =
  /** A copy-on-write overlay on a cached base image, `sizeGiB` virtual. */
  | { kind: 'overlay'; base: CachedImage; sizeGiB: number }
  /** An empty disk (an OS installed from a medium). */
  | { kind: 'blank'; sizeGiB: number }
  /** An ISO kubemix writes from these files (cloud-init NoCloud seed, Autounattend). */
  | { kind: 'config-iso'; label: string; files: Record<string, string> }
  /** A cached installation medium (shared volume, never deleted with the cluster). */
  | { kind: 'cached'; image: CachedImage };

export interface GuestDisk {
  /** The volume in the pool: `<cluster>.<node>.<what>.<ext>`, or the shared cache volume for `cached`. */
  volume: string;
  device: 'disk' | 'cdrom';
  bus: 'virtio' | 'sata' | 'ide';
  /** Guest device name (vda, hdc, sda...). */
  target: string;
  source: DiskSource;
}

/** Everything create-hosts needs to make one guest; pure data, shown by `kubemix plan`. */
export interface GuestDefinition {
  /** Inventory / Kubernetes node name (also the guest's hostname). */
  node: string;
  /** libvirt domain name, `<cluster>.<node>`. */
  domain: string;
  os: HostOs;
  /** Inventory name of the hypervisor it runs on. */
  hypervisor: string;
  vcpus: number;
  memoryMiB: number;
  mac: string;
  /** The address its DHCP reservation gives it. */
  ip: string;
  /** The libvirt network it joins. */
  network: string;
  /** `pc` for Linux cloud images (their kernel has no AHCI: the seed must be on IDE); q35 for Windows. */
  machine: 'pc' | 'q35';
  nicModel: 'virtio' | 'e1000e';
  clock: 'utc' | 'localtime';
  /** Hyper-V enlightenments (Windows). */
  hyperv: boolean;
  disks: GuestDisk[];
  /** Serial console log on the hypervisor, kept for failures (`down` copies it to the cluster directory). */
  consoleLog: string;
}
