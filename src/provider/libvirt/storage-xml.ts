import type { CachedImage } from './image.js';
import { toXml } from './xml.js';

const GIB = 1024 ** 3;

/**
 * A qcow2 overlay volume on a cached base image (libvirt formatstorage.html, backingStore):
 * `vol-create` with this XML, because `vol-create-as --backing-vol` wants the base inside a pool
 * it can resolve by name on every libvirt version (RESEARCH.md).
 */
export function overlayVolumeXml(options: {
  name: string;
  sizeGiB: number;
  basePath: string;
  baseFormat: CachedImage['format'];
}): string {
  return toXml('volume', {
    name: options.name,
    capacity: { '@unit': 'bytes', '#text': options.sizeGiB * GIB },
    target: { format: { '@type': 'qcow2' } },
    backingStore: {
      path: options.basePath,
      format: { '@type': options.baseFormat === 'iso' ? 'raw' : 'qcow2' },
    },
  });
}

/** A directory storage pool (kubemix's pool on each hypervisor: guest disks and cached images). */
export function dirPoolXml(options: { name: string; path: string }): string {
  return toXml('pool', { '@type': 'dir', name: options.name, target: { path: options.path } });
}
