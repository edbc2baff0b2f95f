import { createHash } from 'node:crypto';
import { shQuote } from '../../../quote/index.js';
import type { CachedImage } from '../image.js';
import type { WindowsDeviceModel, WindowsImageSelector, WindowsVersion } from './guest.js';

/**
 * The golden Windows volume: a generalized (sysprep) Windows disk kept in kubemix's image cache,
 * the same storage pool the Linux base image and the Windows ISOs are cached in on each
 * hypervisor. Like them it is named after what it was made from, never after a cluster: every
 * cluster of the hypervisor that asks for the same Windows finds it, `down` keeps it (the leak
 * check looks only for names that begin with the cluster's), and only `--purge-images` deletes
 * it. The pool is per hypervisor, so each hypervisor has its own golden volume; the hypervisor
 * is part of the key by where the volume lives, not by its name.
 */

/** What a golden volume is made from: any difference makes another volume. */
export interface GoldenImageKey {
  /** The Windows Server ISO, by its digest (`sha256:<hex>`). */
  windowsIso: string;
  version: WindowsVersion;
  image: WindowsImageSelector;
  /** The virtio-win ISO by its digest (its drivers are installed in the image), or none. */
  virtioIso: string | null;
  /** Disk and NIC models the image was installed with (virtio only with virtio-win). */
  devices: WindowsDeviceModel;
}

/** A golden volume in the image cache. */
export interface GoldenImage {
  key: GoldenImageKey;
  /** `golden-windows-<version>-<16 hex>.qcow2`: the hex is a SHA-256 of the key. */
  volume: string;
}

const GOLDEN_PREFIX = 'golden-windows-';
const GOLDEN_SUFFIX = '.qcow2';

const digestOf = (image: CachedImage) => `${image.algorithm}:${image.digest}`;

/** The golden volume for a Windows guest installed from these media. */
export function goldenImage(options: {
  windowsIso: CachedImage;
  virtioIso?: CachedImage;
  version: WindowsVersion;
  image: WindowsImageSelector;
}): GoldenImage {
  const key: GoldenImageKey = {
    windowsIso: digestOf(options.windowsIso),
    version: options.version,
    image: options.image,
    virtioIso: options.virtioIso ? digestOf(options.virtioIso) : null,
    devices: options.virtioIso ? 'virtio' : 'emulated',
  };
  // Fixed key order: the same key always hashes the same.
  const canonical = JSON.stringify([key.windowsIso, key.version, key.image, key.virtioIso, key.devices]);
  const hex = createHash('sha256').update(canonical).digest('hex').slice(0, 16);
  return { key, volume: `${GOLDEN_PREFIX}${key.version}-${hex}${GOLDEN_SUFFIX}` };
}

/**
 * The shell test (exit 0: present) for a golden volume in a directory pool. Every decision about
 * it on a hypervisor uses this one test: whether prepare-provider fetches the Windows media and
 * preflight counts a capture, and whether create-hosts installs or makes overlays.
 */
export const goldenVolumeTest = (poolPath: string, volume: string): string =>
  `test -f ${shQuote(`${poolPath}/${volume}`)}`;

/**
 * The shell command that turns the generalized, shut-off disk of the first Windows guest into the
 * golden volume: `qemu-img convert` from qcow2 (the format is given: never probed from a disk
 * the guest wrote) to a standalone qcow2 (qemu-img(1): no backing file,
 * allocated clusters only) into a hidden partial file named after the cluster, made 0644 like the
 * other cached images, then linked into place and the partial name removed — link(2) is atomic
 * and never replaces an existing name, so a run that dies midway leaves only the partial, never
 * a half-written golden volume that another cluster would trust, and a golden volume another
 * cluster captured first (whose overlays may be running) is never overwritten
 * (the next capture by that cluster removes the partial first; `down` removes it, and its leak
 * check reports one left: {@link clusterPartialsPattern}).
 * The pool must be refreshed afterwards for libvirt to list the volume.
 */
export function captureGoldenCommand(options: {
  /** Path of the generalized guest's disk (a volume of the cluster). */
  sourcePath: string;
  poolPath: string;
  volume: string;
  cluster: string;
}): string {
  const partial = shQuote(`${options.poolPath}/${capturePartialName(options.volume, options.cluster)}`);
  const target = shQuote(`${options.poolPath}/${options.volume}`);
  return [
    `rm -f -- ${partial}`,
    `qemu-img convert -f qcow2 -O qcow2 -- ${shQuote(options.sourcePath)} ${partial}`,
    `chmod 0644 -- ${partial}`,
    // link(2) never replaces: a golden volume another cluster captured meanwhile (and its
    // overlays may already use) is kept, and this capture is dropped.
    `{ ln -- ${partial} ${target} 2>/dev/null || test -e ${target}; }`,
    `rm -f -- ${partial}`,
  ].join(' && ');
}

/** The hidden file a capture by `cluster` writes before linking it into place as `volume`. */
export const capturePartialName = (volume: string, cluster: string): string =>
  `.${volume}.${cluster}.partial`;

/**
 * A shell glob, to follow `<pool path>/`, for every capture partial of `cluster` whatever the
 * golden volume (the spec may have changed since the capture). It cannot match another
 * cluster's: the part after the volume's `.qcow2` is exactly `.<cluster>.partial`, a cluster name
 * is a DNS label (no dot), and a golden volume's name has no `.qcow2.` inside it.
 */
export const clusterPartialsPattern = (cluster: string): string =>
  `${shQuote(`.${GOLDEN_PREFIX}`)}*${shQuote(`${GOLDEN_SUFFIX}.${cluster}.partial`)}`;
