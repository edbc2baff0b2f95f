import { InternalError } from '../../errors/index.js';
import { type ImageSource, isImageUrl } from '../../spec/schema.js';
import type { Versions } from '../../versions/versions.js';

/** A base image or ISO kept in kubemix's pool on each hypervisor, shared by every cluster there. */
export interface CachedImage {
  /** An http(s) URL (downloaded by the hypervisor) or a path on the machine running kubemix (copied). */
  source: string;
  kind: 'url' | 'path';
  algorithm: 'sha256' | 'sha512';
  digest: string;
  /** Its volume in the pool, named by its digest: a second cluster finds it and downloads nothing. */
  volume: string;
  format: 'qcow2' | 'iso';
}

/** The Linux base image a spec that names none gets: pinned in playbooks/versions.yaml. */
export function defaultLinuxImage(versions: Versions): ImageSource {
  const source = versions['linux-cloud-image'];
  const sha512 = versions['linux-cloud-image-sha512'];
  if (!source || !sha512)
    throw new InternalError('playbooks/versions.yaml lacks linux-cloud-image / linux-cloud-image-sha512');
  return { source, sha512 };
}

/**
 * The cache entry of an image source. Its digest names the volume, so the source must carry one
 * (the spec requires it for URLs; the CLI hashes local files that come without).
 */
export function cachedImage(image: ImageSource, format: CachedImage['format']): CachedImage {
  const [algorithm, digest] =
    image.sha256 !== undefined
      ? (['sha256', image.sha256] as const)
      : image.sha512 !== undefined
        ? (['sha512', image.sha512] as const)
        : [undefined, undefined];
  if (!algorithm || !digest) throw new InternalError(`image ${image.source} has no digest`);
  return {
    source: image.source,
    kind: isImageUrl(image.source) ? 'url' : 'path',
    algorithm,
    digest,
    volume: `base-${algorithm}-${digest.slice(0, 16)}.${format}`,
    format,
  };
}
