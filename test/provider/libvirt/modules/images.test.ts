import { describe, expect, it } from 'vitest';
import { cachedImage } from '../../../../src/provider/libvirt/image.js';
import { libvirtImagesModule } from '../../../../src/provider/libvirt/modules/images.js';
import { goldenImage } from '../../../../src/provider/libvirt/windows/golden-cache.js';
import { defaultWindowsImage } from '../../../../src/provider/libvirt/windows/guest.js';
import { context, driveMatching, result } from '../../../modules/drive.js';

// libvirt_images with the golden image: the Windows install media are marked with the golden
// volume they make, and the module fetches them only when the pool lacks it (answers are what the
// shell tools print; the pool path is the one `virsh pool-dumpxml` gives).

const POOL_PATH = '/var/lib/kubemix/pool';
const linux = cachedImage(
  { source: 'https://images.example/debian.qcow2', sha512: 'c'.repeat(128) },
  'qcow2',
);
const windowsIso = cachedImage({ source: 'https://isos.example/ws2022.iso', sha256: 'a'.repeat(64) }, 'iso');
const virtioIso = cachedImage(
  { source: 'https://isos.example/virtio-win.iso', sha256: 'b'.repeat(64) },
  'iso',
);
const golden = goldenImage({
  windowsIso,
  virtioIso,
  version: '2022',
  image: defaultWindowsImage('2022'),
}).volume;

const args = {
  uri: 'qemu:///system',
  cluster: 'lab',
  dataDir: '/var/lib/kubemix',
  pool: 'kubemix',
  hypervisors: {
    'hypervisor-01': [linux, { ...windowsIso, onlyWithout: golden }, { ...virtioIso, onlyWithout: golden }],
  },
};
const hypervisor = context({
  host: {
    name: 'hypervisor-01',
    address: '127.0.0.1',
    os: 'linux',
    connection: 'local',
    role: 'hypervisor',
    group: 'hypervisors',
  },
});
const goldenTest = `test -f '${POOL_PATH}/${golden}'`;

/** Nothing cached yet; every download and check succeeds; the golden volume as given. */
function run(goldenThere: boolean) {
  return driveMatching(
    libvirtImagesModule,
    args,
    [
      [/'pool-dumpxml'/, result(`<pool type='dir'><target><path>${POOL_PATH}</path></target></pool>`)],
      [new RegExp(`^${goldenTest}$`), result('', { exitCode: goldenThere ? 0 : 1 })],
      [/^test -s /, result('', { exitCode: 1 })],
      [/^rm -f .* && curl /, result('1000\n')],
      [/^sha512sum /, result(`${linux.digest}\n`)],
      [/^sha256sum .*base-sha256-a/, result(`${windowsIso.digest}\n`)],
      [/^sha256sum .*base-sha256-b/, result(`${virtioIso.digest}\n`)],
      [/^qemu-img info /, result('{"format": "qcow2"}')],
    ],
    hypervisor,
  );
}

const downloads = (execs: string[]) =>
  execs.filter((c) => c.includes('curl ')).map((c) => / -o '[^']+' '([^']+)'/.exec(c)?.[1]);

describe('libvirt_images with the golden image', () => {
  it('fetches neither Windows ISO where the pool has the golden volume (looked for once), only the Linux image', () => {
    const { execs, outcome } = run(true);
    expect(outcome).toMatchObject({
      failed: false,
      changed: true,
      data: { skipped: [windowsIso.volume, virtioIso.volume], cached: [], downloadedBytes: 1000 },
    });
    expect(execs.filter((c) => c === goldenTest)).toHaveLength(1);
    expect(downloads(execs)).toEqual([linux.source]);
    // Nothing of the skipped media is looked at or placed either.
    expect(execs.some((c) => c.includes(windowsIso.volume) || c.includes(virtioIso.volume))).toBe(false);
  });

  it('fetches and checks both Windows ISOs where the golden volume is missing', () => {
    const { execs, outcome } = run(false);
    expect(outcome).toMatchObject({
      failed: false,
      changed: true,
      data: { skipped: [], downloadedBytes: 3000 },
    });
    expect(execs.filter((c) => c === goldenTest)).toHaveLength(1);
    expect(downloads(execs)).toEqual([linux.source, windowsIso.source, virtioIso.source]);
    for (const iso of [windowsIso, virtioIso])
      expect(execs).toContainEqual(expect.stringContaining(`'${POOL_PATH}/${iso.volume}'`));
  });
});
