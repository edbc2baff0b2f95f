import type { HostOs } from '../../types/inventory.js';
import type { CachedImage } from './image.js';
import type { GoldenImage } from './windows/golden-cache.js';
import type { WindowsConfig } from './windows/guest.js';

/**
 * How a guest disk or CD-ROM comes to be. The per-OS builders (linux-guest.ts, windows-guest.ts)
 * choose these; the create-hosts module makes each kind the same way for every OS.
 */
export type DiskSource =
  /** A copy-on-write overlay on a cached base image, `sizeGiB` virtual. */
  | { kind: 'overlay'; base: CachedImage; sizeGiB: number }
  /** An empty disk (an OS installed from a medium). */
  | { kind: 'blank'; sizeGiB: number }
  /** An ISO kubemix writes from these files (cloud-init NoCloud seed). */
  | { kind: 'config-iso'; label: string; files: Record<string, string> }
  /**
   * The config ISO of a Windows guest (Autounattend.xml and the first-logon script): written at
   * create time, because it carries the Administrator password kubemix generates then (kept in
   * secrets.json only, never in the plan). The ISO is 0600 and deleted once the guest answers.
   */
  | {
      kind: 'windows-config';
      config: WindowsConfig;
      /**
       * `install` (default): Autounattend.xml installs Windows from the ISO. `specialize`: the
       * guest is an overlay on the golden volume and the answer file only names it and sets its
       * password (windows/config-iso.ts, windowsConfigFiles).
       */
      answers?: 'install' | 'specialize';
    }
  /**
   * A copy-on-write overlay on the cached golden Windows volume (windows/golden-cache.ts),
   * `sizeGiB` virtual. The golden volume is made on the hypervisor, never downloaded.
   */
  | { kind: 'golden-overlay'; golden: GoldenImage; sizeGiB: number }
  /** A cached installation medium (shared volume, never deleted with the cluster). */
  | { kind: 'cached'; image: CachedImage };

export interface GuestDisk {
  /** The volume in the pool: `<cluster>.<node>.<what>.<ext>`, or the shared cache volume for `cached`. */
  volume: string;
  device: 'disk' | 'cdrom';
  bus: 'virtio' | 'sata' | 'ide';
  /** Guest device name (vda, hdc, sda...). */
  target: string;
  /** Boot order (libvirt's per-device `<boot order>`); none: the machine boots its first disk. */
  bootOrder?: number;
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
  /** The libvirt network it joins (the one of its hypervisor). */
  network: string;
  /**
   * The NIC's MTU when the network's is not 1500 (a network spanning hypervisors: the tunnel's).
   * libvirt sets it on the tap device and, for a virtio NIC, tells the guest (domain-xml.ts).
   */
  mtu?: number;
  /** `pc` for Linux cloud images (their kernel has no AHCI: the seed must be on IDE); q35 for Windows. */
  machine: 'pc' | 'q35';
  nicModel: 'virtio' | 'e1000e';
  /**
   * `utc` (Linux), or `localtime` with virt-install's Windows timers (RTC catching up, PIT delayed,
   * no HPET, the Hyper-V clock).
   */
  clock: 'utc' | 'localtime';
  /**
   * Windows: Hyper-V enlightenments, chosen on the hypervisor from `virsh domcapabilities` when
   * the guest is created (see windows/hyperv.ts); QEMU's `maximum` CPU model under TCG (its
   * default qemu64 model lacks CPU features 64-bit Windows requires); a VNC console on the
   * hypervisor's loopback (to watch Windows Setup) with a USB tablet; no memory balloon.
   */
  windowsMachine: boolean;
  disks: GuestDisk[];
  /** Serial console log on the hypervisor, kept for failures (`down` copies it to the cluster directory). */
  consoleLog: string;
}
