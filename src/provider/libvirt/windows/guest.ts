import type { WindowsVersion as KubemixWindowsVersion } from '../../../types/windows.js';

/**
 * What the Windows parts of the libvirt provider need to know about one Windows guest. The
 * provider fills these from the spec and the hypervisor's facts; every file, command line and
 * XML document under this folder is a pure function of them.
 */

/**
 * Windows Server versions kubemix installs from their evaluation ISOs: every version kubemix
 * supports (src/types/windows.ts). The tables keyed by it (virtio-drivers.ts) make a version added
 * there fail to compile until its libvirt guests are covered too.
 */
export type WindowsVersion = KubemixWindowsVersion;

/**
 * Which image of the ISO's install.wim Windows Setup installs: by index or by exact name
 * (Microsoft-Windows-Setup | ImageInstall | OSImage | InstallFrom | MetaData, keys
 * `/IMAGE/INDEX` and `/IMAGE/NAME`).
 */
export type WindowsImageSelector = { index: number } | { name: string };

/**
 * Disk and NIC models. `virtio` (virtio-blk disk, virtio-net NIC) needs the virtio-win drivers
 * in the windowsPE DriverPaths, so it is chosen only together with a virtio-win ISO;
 * `emulated` (SATA disk, e1000e NIC) works with the drivers Windows ships.
 */
export type WindowsDeviceModel = 'virtio' | 'emulated';

/** The account kubemix creates the password of and connects with. */
export const WINDOWS_ADMIN_USER = 'Administrator';

/**
 * The default image: Datacenter without Desktop Experience ("Server Core"). It installs in a
 * fraction of the time and disk of the Desktop image and is what Windows container hosts run;
 * the eval ISOs name it `Windows Server <version> SERVERDATACENTERCORE` (index 3 on 2019 and
 * 2022). The 2025 evaluation ISO's install.wim names its images the same way:
 * `Windows Server 2025 SERVERSTANDARDCORE`, `SERVERSTANDARD` (Desktop Experience),
 * `SERVERDATACENTERCORE`, `SERVERDATACENTER` (vmware-samples/packer-examples-for-vsphere,
 * builds/windows/server/2025/variables.pkr.hcl, commit 7eff833); kubemix selects by name, so the
 * images' order does not matter.
 */
export function defaultWindowsImage(version: WindowsVersion): WindowsImageSelector {
  return { name: `Windows Server ${version} SERVERDATACENTERCORE` };
}

/** One Windows guest as its answer files see it. */
export interface WindowsGuest {
  /** Inventory and Kubernetes node name (kubelet gets it as --hostname-override). */
  nodeName: string;
  /** NetBIOS computer name, at most 15 characters (see computer-name.ts). */
  computerName: string;
  version: WindowsVersion;
  image: WindowsImageSelector;
  /** The generated Administrator password: kept in secrets.json only. */
  administratorPassword: string;
  devices: WindowsDeviceModel;
  /**
   * The cluster's SSH public key (one OpenSSH `authorized_keys` line) when the guest's group
   * connects with `connection: ssh`: OpenSSH Server is installed and the key authorized.
   */
  sshAuthorizedKey?: string;
}

/** A Windows guest's answer files before its password exists (the plan's part; see DiskSource). */
export type WindowsConfig = Omit<WindowsGuest, 'administratorPassword'>;
