import { createHash } from 'node:crypto';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { execa } from 'execa';
import { makeTempDir } from '../../scripts/lab/temp-dir.js';

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

/**
 * A real, minimal container image as an OCI image layout archive (the OCI image-spec's
 * image-layout.md: oci-layout, index.json, blobs/sha256/...), one gzip layer holding one file,
 * named by the `io.containerd.image.name` annotation that `ctr images import` reads
 * (containerd images/archive/importer.go). For linux/amd64. Real containerd imports it.
 */
export async function buildOciImageArchive(path: string, ref: string): Promise<void> {
  const root = await makeTempDir('oci');
  try {
    const content = join(root, 'content');
    await mkdir(content);
    await writeFile(join(content, 'kubemix-test-image'), `${ref}\n`);
    await execa('tar', [
      '--owner=0',
      '--group=0',
      '--mtime=@0',
      '-cf',
      join(root, 'layer.tar'),
      '-C',
      content,
      '.',
    ]);
    const layerTar = await readFile(join(root, 'layer.tar'));
    const layer = gzipSync(layerTar);
    const config = Buffer.from(
      JSON.stringify({
        architecture: 'amd64',
        os: 'linux',
        config: {},
        rootfs: { type: 'layers', diff_ids: [`sha256:${sha256(layerTar)}`] },
      }),
    );
    const manifest = Buffer.from(
      JSON.stringify({
        schemaVersion: 2,
        mediaType: 'application/vnd.oci.image.manifest.v1+json',
        config: {
          mediaType: 'application/vnd.oci.image.config.v1+json',
          digest: `sha256:${sha256(config)}`,
          size: config.length,
        },
        layers: [
          {
            mediaType: 'application/vnd.oci.image.layer.v1.tar+gzip',
            digest: `sha256:${sha256(layer)}`,
            size: layer.length,
          },
        ],
      }),
    );
    const layout = join(root, 'layout');
    await mkdir(join(layout, 'blobs', 'sha256'), { recursive: true });
    for (const blob of [layer, config, manifest])
      await writeFile(join(layout, 'blobs', 'sha256', sha256(blob)), blob);
    await writeFile(join(layout, 'oci-layout'), JSON.stringify({ imageLayoutVersion: '1.0.0' }));
    await writeFile(
      join(layout, 'index.json'),
      JSON.stringify({
        schemaVersion: 2,
        manifests: [
          {
            mediaType: 'application/vnd.oci.image.manifest.v1+json',
            digest: `sha256:${sha256(manifest)}`,
            size: manifest.length,
            annotations: {
              'io.containerd.image.name': ref,
              'org.opencontainers.image.ref.name': ref.slice(ref.lastIndexOf(':') + 1),
            },
          },
        ],
      }),
    );
    await execa('tar', ['--owner=0', '--group=0', '-cf', path, '-C', layout, '.']);
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}
