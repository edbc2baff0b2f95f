import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type GoldenTestHypervisor,
  goldenTestHypervisor,
  STAND_IN_GOLDEN,
  writePoolFiles,
} from '../../../../fixtures/libvirt/golden.js';
import { ensureLibvirtd, type TestLibvirtd } from '../../../../fixtures/libvirt/libvirtd.js';
import {
  libvirtDestroyGuestsModule,
  libvirtLeakCheckModule,
} from '../../../../src/provider/libvirt/modules/index.js';
import { capturePartialName } from '../../../../src/provider/libvirt/windows/golden-cache.js';

// `down` and a golden image capture that died before its rename (golden-cache.ts,
// captureGoldenCommand): the cluster's hidden partial file in the pool directory is reported by
// the leak check and removed by libvirt_destroy_guests, on a real libvirtd and its real pool;
// another cluster's partial and the golden volume stay. The modules run through kubemix's local
// transport as `down` runs them on a local hypervisor.

let libvirtd: TestLibvirtd;
let hv: GoldenTestHypervisor;
const golden = STAND_IN_GOLDEN;

const leakCheck = () =>
  hv.run(libvirtLeakCheckModule, { ...hv.common, cidr: hv.cluster.cidr, hypervisors: {} });
const destroyGuests = () =>
  hv.run(libvirtDestroyGuestsModule, { ...hv.common, consoleDir: '', purgeImages: [], recorded: {} });

beforeAll(async () => {
  libvirtd = await ensureLibvirtd();
  hv = await goldenTestHypervisor('kmx-partial');
}, 120_000);

afterAll(async () => {
  await hv?.remove();
  await libvirtd?.stop();
}, 120_000);

describe('a golden image capture partial on down (real libvirtd pool)', () => {
  it('is reported by the leak check and removed by destroy-hosts; other clusters and the golden volume stay', async () => {
    const cluster = hv.cluster.name;
    const ours = capturePartialName(golden.volume, cluster);
    // Another cluster whose name begins with ours: its partial is not ours.
    const theirs = capturePartialName(golden.volume, `${cluster}-2`);
    await writePoolFiles(hv, { [ours]: 'stand-in', [theirs]: 'stand-in', [golden.volume]: 'stand-in' });

    const before = await leakCheck();
    expect(before.failed).toBe(true);
    expect(before.data?.['found']).toEqual([{ kind: 'file', name: join(hv.poolPath, ours) }]);

    const destroyed = await destroyGuests();
    expect(destroyed).toMatchObject({ failed: false, changed: true });
    expect(existsSync(join(hv.poolPath, ours))).toBe(false);
    expect(existsSync(join(hv.poolPath, theirs))).toBe(true);
    expect(existsSync(join(hv.poolPath, golden.volume))).toBe(true);

    const after = await leakCheck();
    expect(after.failed).toBe(false);
    expect(after.data?.['found']).toEqual([]);
    // Nothing left to remove: a second down changes nothing.
    expect(await destroyGuests()).toMatchObject({ failed: false, changed: false });
  });
});
