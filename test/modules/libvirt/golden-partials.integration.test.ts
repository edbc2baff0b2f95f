import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureLibvirtd, type TestLibvirtd, virsh } from '../../../fixtures/libvirt/libvirtd.js';
import { applyProvisionUpdate } from '../../../src/engine/index.js';
import { runModule } from '../../../src/executor/run-module.js';
import { libvirtDestroyGuestsModule, libvirtLeakCheckModule } from '../../../src/modules/libvirt/index.js';
import type { Module } from '../../../src/modules/types.js';
import { cachedImage } from '../../../src/provider/libvirt/image.js';
import { dirPoolXml } from '../../../src/provider/libvirt/storage-xml.js';
import { capturePartialName, goldenImage } from '../../../src/provider/libvirt/windows/golden-cache.js';
import { LocalTransport } from '../../../src/transport/local/index.js';
import type { InventoryHost } from '../../../src/types/inventory.js';
import type { ProviderResource, ProvisionLedger } from '../../../src/types/provision.js';
import { testTempDir } from '../../helpers/temp.js';

// `down` and a golden image capture that died before its rename (golden-cache.ts,
// captureGoldenCommand): the cluster's hidden partial file in the pool directory is reported by
// the leak check and removed by libvirt_destroy_guests, on a real libvirtd and its real pool;
// another cluster's partial and the golden volume stay. The modules run through kubemix's local
// transport as `down` runs them on a local hypervisor.

const run = randomBytes(3).toString('hex');
const cluster = `kmx-partial-${run}`;
const pool = `kubemix-tests-partial-${run}`;
const host: InventoryHost = {
  name: 'hypervisor-01',
  address: '127.0.0.1',
  os: 'linux',
  connection: 'local',
  role: 'worker',
  group: 'hypervisors',
};
let libvirtd: TestLibvirtd;
let poolPath: string;

const golden = goldenImage({
  windowsIso: cachedImage({ source: '/isos/ws2022.iso', sha256: 'c'.repeat(64) }, 'iso'),
  version: '2022',
  image: { name: 'Windows Server 2022 SERVERDATACENTERCORE' },
});

const resources: ProviderResource[] = [];
const ledger: ProvisionLedger = {
  get resources() {
    return resources;
  },
  record: async (update) =>
    applyProvisionUpdate({ resources, assignments: {} }, update, new Date().toISOString()),
};

async function runHere<A>(module: Module<A>, args: Record<string, unknown>) {
  const transport = new LocalTransport(host.name);
  try {
    return await runModule({
      module: module as Module<unknown>,
      args,
      context: { host, os: 'linux', vars: {}, checkMode: false, ledger },
      transport,
    });
  } finally {
    await transport.close();
  }
}

const common = () => ({
  uri: 'qemu:///system',
  cluster,
  dataDir: dirname(poolPath),
  pool,
});
const leakCheck = () =>
  runHere(libvirtLeakCheckModule, { ...common(), cidr: '10.213.231.0/24', hypervisors: {} });

beforeAll(async () => {
  libvirtd = await ensureLibvirtd();
  poolPath = join(await testTempDir('golden-partial'), 'pool');
  mkdirSync(poolPath);
  const file = join(dirname(poolPath), 'pool.xml');
  writeFileSync(file, dirPoolXml({ name: pool, path: poolPath }));
  await virsh('pool-define', file);
  await virsh('pool-start', pool);
}, 120_000);

afterAll(async () => {
  await execa('virsh', ['-c', 'qemu:///system', 'pool-destroy', pool], { reject: false });
  await execa('virsh', ['-c', 'qemu:///system', 'pool-undefine', pool], { reject: false });
  if (poolPath) rmSync(dirname(poolPath), { recursive: true, force: true });
  await libvirtd?.stop();
}, 120_000);

describe('a golden image capture partial on down (real libvirtd pool)', () => {
  it('is reported by the leak check and removed by destroy-hosts; other clusters and the golden volume stay', async () => {
    const ours = join(poolPath, capturePartialName(golden.volume, cluster));
    // Another cluster whose name begins with ours: its partial is not ours.
    const theirs = join(poolPath, capturePartialName(golden.volume, `${cluster}-2`));
    const goldenPath = join(poolPath, golden.volume);
    for (const file of [ours, theirs, goldenPath]) writeFileSync(file, 'stand-in');
    await virsh('pool-refresh', pool);

    const before = await leakCheck();
    expect(before.failed).toBe(true);
    expect(before.data?.['found']).toEqual([{ kind: 'file', name: ours }]);

    const destroyed = await runHere(libvirtDestroyGuestsModule, {
      ...common(),
      consoleDir: '',
      purgeImages: [],
      recorded: {},
    });
    expect(destroyed).toMatchObject({ failed: false, changed: true });
    expect(existsSync(ours)).toBe(false);
    expect(existsSync(theirs)).toBe(true);
    expect(existsSync(goldenPath)).toBe(true);

    const after = await leakCheck();
    expect(after.failed).toBe(false);
    expect(after.data?.['found']).toEqual([]);
    // Nothing left to remove: a second down changes nothing.
    const again = await runHere(libvirtDestroyGuestsModule, {
      ...common(),
      consoleDir: '',
      purgeImages: [],
      recorded: {},
    });
    expect(again).toMatchObject({ failed: false, changed: false });
  });
});
