import { createHash } from 'node:crypto';
import { constants, createReadStream } from 'node:fs';
import { access } from 'node:fs/promises';
import { SpecError } from '../../errors/index.js';
import { type ClusterSpec, isImageUrl } from '../../spec/schema.js';

async function sha256File(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/**
 * A libvirt spec whose local image paths all carry a digest: the cache names images by digest,
 * so a file given without one is hashed here (once per command; URLs always come with theirs).
 *
 * @throws SpecError naming the field of a file that cannot be read
 */
export async function withLocalImageDigests(spec: ClusterSpec, file: string): Promise<ClusterSpec> {
  if (spec.provider.type !== 'libvirt') return spec;
  const images = { ...spec.provider.images };
  for (const key of ['linux', 'windows', 'virtio'] as const) {
    const image = images[key];
    if (!image || isImageUrl(image.source)) continue;
    try {
      if (image.sha256 || image.sha512) await access(image.source, constants.R_OK);
      else images[key] = { ...image, sha256: await sha256File(image.source) };
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? 'read error';
      throw new SpecError([
        { file, path: `provider.images.${key}.source`, message: `cannot read ${image.source} (${code})` },
      ]);
    }
  }
  return { ...spec, provider: { ...spec.provider, images } };
}
