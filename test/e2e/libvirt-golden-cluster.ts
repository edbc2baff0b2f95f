import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { ensureLibvirtd, type TestLibvirtd, virsh } from '../../fixtures/libvirt/libvirtd.js';
import {
  removeWindowsTestCluster,
  type WindowsTestCluster,
  writeWindowsTestSpec,
} from '../../fixtures/libvirt/windows-spec.js';
import { cachedImage } from '../../src/provider/libvirt/image.js';
import { goldenImage } from '../../src/provider/libvirt/windows/golden-cache.js';
import { defaultWindowsImage } from '../../src/provider/libvirt/windows/guest.js';
import { kubemix, tempClusterDir } from './helpers.js';

// What the golden-image e2e tests (libvirt-golden, libvirt-golden-resume) build on: a libvirt
// cluster of one controller and two Windows workers with `windows.goldenImage: true`, whose
// "Windows ISO" is a STAND-IN that boots nothing (fixtures/libvirt/windows-spec.ts).

/** The cluster of {@link useGoldenTestCluster} (known once the file's beforeAll has run), and what the tests ask of it. */
export interface GoldenTestCluster extends WindowsTestCluster {
  /** The cluster's libvirt domains, sorted. */
  domains(): Promise<string[]>;
  /** The golden volume kubemix names after the spec's Windows ISO. */
  goldenVolume(): string;
  /** What libvirt_guests decided about the golden image at its last run (`capture`, `exists`, `generalizing`). */
  goldenDecision(): Promise<string | undefined>;
}

/**
 * Writes the cluster's spec before the calling file's tests and removes what is left of the
 * cluster after them (`kubemix down`, with `downFlags`, when anything is still there).
 */
export function useGoldenTestCluster(options: { stem: string; downFlags?: string[] }): GoldenTestCluster {
  let libvirtd: TestLibvirtd | undefined;
  let test: WindowsTestCluster | undefined;
  const g = {
    async domains() {
      return (await virsh('list', '--all', '--name'))
        .split('\n')
        .map((l) => l.trim())
        .filter((l) => l.startsWith(`${g.cluster.name}.`))
        .sort();
    },
    goldenVolume() {
      return goldenImage({
        windowsIso: cachedImage(g.windowsIso, 'iso'),
        version: '2022',
        image: defaultWindowsImage('2022'),
      }).volume;
    },
    async goldenDecision() {
      const state = JSON.parse(await readFile(join(g.clusterDir, 'state.json'), 'utf8')) as {
        outputs: Record<string, Record<string, { golden?: string }>>;
      };
      return state.outputs['hypervisor-01']?.['libvirt_guests']?.golden;
    },
  } as GoldenTestCluster;

  beforeAll(async () => {
    libvirtd = await ensureLibvirtd();
    test = await writeWindowsTestSpec({
      stem: options.stem,
      dir: await tempClusterDir(),
      windows: 2,
      goldenImage: true,
    });
    Object.assign(g, test);
  }, 20 * 60_000);

  afterAll(async () => {
    await removeWindowsTestCluster(test, (t) =>
      kubemix(['down', t.spec, '--cluster-dir', t.clusterDir, ...(options.downFlags ?? [])]),
    );
    await libvirtd?.stop();
  }, 10 * 60_000);

  return g;
}
