import type { WindowsVersion } from './guest.js';

/**
 * virtio-win ISO layout (virtio-win/kvm-guest-drivers-windows packaging, as shipped on the
 * virtio-win ISOs and used by Kubeinit's autounattend): one folder per driver, one folder per
 * Windows release inside it, then the architecture: `viostor\2k22\amd64`. The folder names are
 * virtio-win-pkg-scripts util/filemap.py's SUPPORTED_OSES (commit fe58e15); `2k25` (the Windows 11
 * driver builds, `Win11/amd64` -> `2k25/amd64` for viostor and NetKVM) came with commit d61b98d
 * (April 2024, "WS2025 ... support"): virtio-win ISOs built before it have no 2k25 folder.
 */
export const VIRTIO_OS_FOLDER: Readonly<Record<WindowsVersion, string>> = {
  '2019': '2k19',
  '2022': '2k22',
  '2025': '2k25',
};

/**
 * The drivers a virtio guest needs during setup: viostor (the virtio-blk disk Windows installs
 * to) and NetKVM (the virtio-net NIC; without it the installed system has no network).
 */
export const VIRTIO_SETUP_DRIVERS = ['viostor', 'NetKVM'] as const;

/**
 * Drive letter of the virtio-win CD-ROM in Windows PE. The domain puts the Windows ISO on the
 * first SATA CD-ROM and virtio-win on the second (windows-guest.ts); on a blank disk Windows PE
 * gives them D: and E:, the layout Kubeinit's autounattend relied on (`E:\amd64\2k22`,
 * `E:\NetKVM\2k22`). Windows PE offers no way to name a driver path by volume label, so the
 * device order is what fixes the letter.
 */
export const VIRTIO_DRIVE_LETTER = 'E';

/** The windowsPE DriverPaths entries for a virtio guest of `version`. */
export function virtioDriverPaths(version: WindowsVersion): string[] {
  const os = VIRTIO_OS_FOLDER[version];
  return VIRTIO_SETUP_DRIVERS.map((driver) => `${VIRTIO_DRIVE_LETTER}:\\${driver}\\${os}\\amd64`);
}
