import { describe, expect, it } from 'vitest';
import { cachedImage } from '../../../src/provider/libvirt/image.js';
import { LibvirtProvider } from '../../../src/provider/libvirt/libvirt-provider.js';
import { goldenImage } from '../../../src/provider/libvirt/windows/golden-cache.js';
import { type ClusterSpec, type ClusterSpecInput, clusterSpecSchema } from '../../../src/spec/schema.js';
import { loadVersions } from '../../../src/versions/versions.js';

// `down --purge-images` and the golden Windows volumes. The spec is parsed without the
// cross-field rules, which allow one Windows version with `windows.goldenImage: true`: this spec
// has two, to check that each version's golden volume would be listed.

const WINDOWS_ISO = { source: 'https://isos.example/ws2022.iso', sha256: 'a'.repeat(64) };
const VIRTIO_ISO = { source: 'https://isos.example/virtio-win.iso', sha256: 'b'.repeat(64) };

function purged(golden: boolean): string[] {
  const input: ClusterSpecInput = {
    name: 'lab',
    provider: {
      type: 'libvirt',
      images: { windows: WINDOWS_ISO, virtio: VIRTIO_ISO },
      windows: { goldenImage: golden },
    },
    nodes: {
      controlPlane: { count: 1 },
      workers: [
        { name: 'win', os: 'windows', count: 2 },
        { name: 'win19', os: 'windows', count: 1, windowsVersion: '2019' },
      ],
    },
  };
  const spec = clusterSpecSchema.parse(input) as ClusterSpec;
  const teardown = new LibvirtProvider().teardown(
    spec,
    {
      resources: [
        { provider: 'libvirt', kind: 'domain', name: 'lab.win-01', location: 'localhost', status: 'created' },
      ],
      purgeImages: true,
    },
    { versions: loadVersions(), clusterDir: '/clusters/lab' },
  );
  const destroy = teardown.tasks.find((t) => t.name === 'destroy-hosts')!;
  return destroy.steps[0]!.args!['purgeImages'] as string[];
}

const golden = (version: '2019' | '2022') =>
  goldenImage({
    windowsIso: cachedImage(WINDOWS_ISO, 'iso'),
    virtioIso: cachedImage(VIRTIO_ISO, 'iso'),
    version,
    image: { name: `Windows Server ${version} SERVERDATACENTERCORE` },
  }).volume;

describe('down --purge-images', () => {
  it('purges the golden volume of each Windows version of a golden-image spec, beside the cached ISOs', () => {
    const list = purged(true);
    expect(list).toEqual(expect.arrayContaining([golden('2022'), golden('2019')]));
    expect(list).toContain(cachedImage(WINDOWS_ISO, 'iso').volume);
  });

  it('lists no golden volume for a spec without the golden image', () => {
    expect(purged(false).some((v) => v.startsWith('golden-'))).toBe(false);
  });
});
