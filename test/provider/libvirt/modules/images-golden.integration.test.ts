import { execFileSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { removeTestStorage } from '../../../../fixtures/libvirt/lab.js';
import { ensureLibvirtd, type TestLibvirtd, virsh } from '../../../../fixtures/libvirt/libvirtd.js';
import { applyProvisionUpdate } from '../../../../src/engine/index.js';
import { runModule } from '../../../../src/executor/run-module.js';
import type { Module } from '../../../../src/modules/types.js';
import type { GuestInput } from '../../../../src/provider/libvirt/guest-os.js';
import { cachedImage } from '../../../../src/provider/libvirt/image.js';
import { libvirtGuestsModule, libvirtImagesModule } from '../../../../src/provider/libvirt/modules/index.js';
import { macAddress } from '../../../../src/provider/libvirt/names.js';
import { goldenImage } from '../../../../src/provider/libvirt/windows/golden-cache.js';
import { defaultWindowsImage } from '../../../../src/provider/libvirt/windows/index.js';
import { windowsGoldenGuest } from '../../../../src/provider/libvirt/windows-golden-guest.js';
import { windowsGuest } from '../../../../src/provider/libvirt/windows-guest.js';
import { LocalTransport } from '../../../../src/transport/local/index.js';
import type { InventoryHost } from '../../../../src/types/inventory.js';
import type { ProviderResource, ProvisionLedger } from '../../../../src/types/provision.js';
import { testTempDirSync } from '../../../helpers/temp.js';

// prepare-provider's Windows media with the golden image, on a real libvirtd through kubemix's
// local transport: libvirt_images leaves the Windows ISO alone where the pool has the golden
// volume, and when that volume is then removed, create-hosts (libvirt_guests) stops in one line
// before making anything, and a second libvirt_images fetches the ISO. STAND-INS: the "Windows
// ISO" is a file of random bytes (copied from this machine, as a local-path image is), the golden
// volume an empty qcow2 made with qemu-img where a capture would put it.

const run = randomBytes(3).toString('hex');
const cluster = `kmx-gimg-${run}`;
const pool = `kubemix-tests-gimg-${run}`;
const dataDir = `/var/lib/kubemix-tests-${cluster}`;
const poolPath = join(dataDir, 'pool');
const HV = 'hypervisor-01';
const host: InventoryHost = {
  name: HV,
  address: '127.0.0.1',
  os: 'linux',
  connection: 'local',
  role: 'worker',
  group: 'hypervisors',
};
const media = testTempDirSync('golden-media');
const isoFile = join(media, 'not-windows.iso');
const isoBytes = randomBytes(256 * 1024);
writeFileSync(isoFile, isoBytes);
const windowsIso = cachedImage(
  { source: isoFile, sha256: createHash('sha256').update(isoBytes).digest('hex') },
  'iso',
);
const golden = goldenImage({ windowsIso, version: '2022', image: defaultWindowsImage('2022') });
const common = { uri: 'qemu:///system', cluster, dataDir, pool };
/** What prepare-provider gives libvirt_images with the golden image (libvirt-provider.ts). */
const imagesArgs = { ...common, hypervisors: { [HV]: [{ ...windowsIso, onlyWithout: golden.volume }] } };
let libvirtd: TestLibvirtd;

const resources: ProviderResource[] = [];
const ledger: ProvisionLedger = {
  get resources() {
    return resources;
  },
  record: async (update) =>
    applyProvisionUpdate({ resources, assignments: {} }, update, new Date().toISOString()),
};

function input(node: string): GuestInput {
  return {
    cluster,
    node,
    hypervisor: HV,
    vcpus: 1,
    memoryMiB: 128,
    diskGiB: 1,
    ip: '10.213.250.11',
    mac: macAddress(cluster, node),
    network: `${cluster}.${HV}.network`,
    dnsDomain: `${cluster}.kubemix.internal`,
    dataDir,
    publicKey: 'ssh-ed25519 AAAA kubemix',
    connection: 'winrm',
    images: { windows: windowsIso },
    windows: { version: '2022', computerName: node },
  };
}

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

const clusterDomains = async () =>
  (await virsh('list', '--all', '--name'))
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l.startsWith(`${cluster}.`));
const poolVolumes = async () =>
  (await virsh('vol-list', '--pool', pool))
    .split('\n')
    .map((l) => l.trim().split(/\s+/)[0])
    .filter((name): name is string => Boolean(name))
    .sort();

beforeAll(async () => {
  libvirtd = await ensureLibvirtd();
}, 120_000);

afterAll(async () => {
  await removeTestStorage({ dataDir, pool });
  await libvirtd?.stop();
}, 120_000);

describe('Windows media with the golden image (real libvirtd; stand-in ISO and golden volume)', () => {
  it('skips the ISO with the golden volume; create-hosts stops when it went; the ISO is fetched without it', {
    timeout: 120_000,
  }, async () => {
    // The pool as libvirt_images makes it on a new hypervisor, then the golden volume in it.
    const made = await runHere(libvirtImagesModule, { ...common, hypervisors: { [HV]: [] } });
    expect(made.failed, made.msg).toBe(false);
    execFileSync('qemu-img', ['create', '-q', '-f', 'qcow2', join(poolPath, golden.volume), '1G']);
    await virsh('pool-refresh', pool);

    const skipped = await runHere(libvirtImagesModule, imagesArgs);
    expect(skipped.failed, skipped.msg).toBe(false);
    expect(skipped.data).toMatchObject({ skipped: [windowsIso.volume], cached: [] });
    expect(existsSync(join(poolPath, windowsIso.volume))).toBe(false);
    expect(await poolVolumes()).toEqual([golden.volume]);

    // The golden volume goes between prepare-provider and create-hosts.
    await virsh('vol-delete', '--pool', pool, golden.volume);
    const guests = await runHere(libvirtGuestsModule, {
      ...common,
      accel: 'qemu',
      passwords: { 'win-1': 'Kmx-test-password-1' },
      hypervisors: { [HV]: [windowsGoldenGuest(input('win-1'), golden)] },
      golden: { [HV]: { volume: golden.volume, install: windowsGuest(input('win-1')) } },
    });
    expect(guests.failed).toBe(true);
    expect(guests.msg).toBe(
      `${cluster}.win-1: the golden Windows volume ${golden.volume} is not in the pool, and neither is ${windowsIso.volume} (${isoFile}) to install it from: prepare-provider found the golden volume and fetched no Windows media, and the volume was removed since. Run \`kubemix up --from prepare-provider\` to fetch them and install`,
    );
    expect(await clusterDomains()).toEqual([]);
    expect(await poolVolumes()).toEqual([]);
    expect(resources).toEqual([]);

    // prepare-provider again (`up --from prepare-provider`): now the ISO is fetched.
    const fetched = await runHere(libvirtImagesModule, imagesArgs);
    expect(fetched.failed, fetched.msg).toBe(false);
    expect(fetched.data).toMatchObject({ skipped: [], cached: [] });
    expect(readFileSync(join(poolPath, windowsIso.volume)).equals(isoBytes)).toBe(true);
    expect(await poolVolumes()).toEqual([windowsIso.volume]);
  });
});
