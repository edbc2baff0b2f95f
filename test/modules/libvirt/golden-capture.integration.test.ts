import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { removeTestStorage } from '../../../fixtures/libvirt/lab.js';
import { ensureLibvirtd, type TestLibvirtd, virsh } from '../../../fixtures/libvirt/libvirtd.js';
import { applyProvisionUpdate } from '../../../src/engine/index.js';
import { runModule } from '../../../src/executor/run-module.js';
import { libvirtGoldenCaptureModule } from '../../../src/modules/libvirt/index.js';
import type { Module } from '../../../src/modules/types.js';
import { cachedImage } from '../../../src/provider/libvirt/image.js';
import { dirPoolXml } from '../../../src/provider/libvirt/storage-xml.js';
import { goldenImage } from '../../../src/provider/libvirt/windows/golden-cache.js';
import { LocalTransport } from '../../../src/transport/local/index.js';
import type { InventoryHost } from '../../../src/types/inventory.js';
import type { ProviderResource, ProvisionLedger } from '../../../src/types/provision.js';

// libvirt_golden_capture on a real libvirtd, QEMU (TCG) and qemu-img, through kubemix's local
// transport. STAND-INS, not Windows: the "generalized Windows disk" is a small qcow2 volume with a
// known byte pattern, attached to a small domain that boots nothing; "sysprep shuts Windows off"
// is QEMU told to quit over QMP, which libvirt reports exactly as a guest's own power-off:
// `shut off (shutdown)` (checked here, not assumed). What is proven: the wait sees the guest stop
// while kubemix waits, the disk becomes the golden volume, the installed guest goes, and a guest
// stopped any other way (virsh destroy) is not captured.

const run = randomBytes(3).toString('hex');
const cluster = `kmx-capture-${run}`;
const pool = `kubemix-tests-capture-${run}`;
const dataDir = `/var/lib/kubemix-tests-${cluster}`;
const host: InventoryHost = {
  name: 'hypervisor-01',
  address: '127.0.0.1',
  os: 'linux',
  connection: 'local',
  role: 'worker',
  group: 'hypervisors',
};
const PATTERN = '0x5a';
let libvirtd: TestLibvirtd;
let poolPath: string;
const domains: string[] = [];

const golden = goldenImage({
  windowsIso: cachedImage({ source: '/isos/ws2022.iso', sha256: 'd'.repeat(64) }, 'iso'),
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

const qemuIo = (file: string, command: string) =>
  execa('qemu-io', ['-f', 'qcow2', '-c', command, file], { reject: false });
const lv = (...args: string[]) => execa('virsh', ['-q', '-c', 'qemu:///system', ...args], { reject: false });

/** A cluster's installed guest as create-hosts leaves it: a domain of the cluster on its disk volume, running. */
async function installedGuest(node: string): Promise<{ domain: string; disk: string }> {
  const domain = `${cluster}.${node}`;
  const disk = `${cluster}.${node}.disk.qcow2`;
  await virsh('vol-create-as', pool, disk, '64M', '--format', 'qcow2');
  expect((await qemuIo(join(poolPath, disk), `write -P ${PATTERN} 0 1M`)).exitCode).toBe(0);
  const file = join(dirname(poolPath), `${node}.xml`);
  writeFileSync(
    file,
    `<domain type="qemu"><name>${domain}</name><memory unit="MiB">64</memory><vcpu>1</vcpu><os><type arch="x86_64">hvm</type></os><devices><disk type="volume" device="disk"><driver name="qemu" type="qcow2"/><source pool="${pool}" volume="${disk}"/><target dev="vda" bus="virtio"/></disk></devices></domain>`,
  );
  domains.push(domain);
  await virsh('define', file);
  await virsh('start', domain);
  resources.push(
    {
      provider: 'libvirt',
      kind: 'domain',
      name: domain,
      location: host.name,
      status: 'created',
      details: { node },
    },
    {
      provider: 'libvirt',
      kind: 'volume',
      name: disk,
      location: host.name,
      status: 'created',
      details: { pool },
    },
  );
  return { domain, disk };
}

function capture(guest: { domain: string; disk: string }, onProgress?: (message: string) => void) {
  const transport = new LocalTransport(host.name);
  return runModule({
    module: libvirtGoldenCaptureModule as Module<unknown>,
    args: {
      uri: 'qemu:///system',
      cluster,
      dataDir: dirname(poolPath),
      pool,
      domain: guest.domain,
      node: guest.domain.slice(cluster.length + 1),
      disk: guest.disk,
      golden: golden.volume,
      timeoutMinutes: 5,
    },
    context: { host, os: 'linux', vars: {}, checkMode: false, ledger },
    transport,
    ...(onProgress ? { onProgress } : {}),
  }).finally(() => transport.close());
}

const volumes = async () =>
  (await virsh('vol-list', pool))
    .split('\n')
    .map((l) => l.trim().split(/\s+/)[0])
    .filter(Boolean);

beforeAll(async () => {
  libvirtd = await ensureLibvirtd();
  // Under /var/lib like the libvirt e2e tests' storage: QEMU runs as libvirt's user, which cannot
  // enter the test temp directory.
  poolPath = join(dataDir, 'pool');
  mkdirSync(poolPath, { recursive: true });
  const file = join(dirname(poolPath), 'pool.xml');
  writeFileSync(file, dirPoolXml({ name: pool, path: poolPath }));
  await virsh('pool-define', file);
  await virsh('pool-start', pool);
}, 120_000);

afterAll(async () => {
  for (const domain of domains) {
    await lv('destroy', domain);
    await lv('undefine', '--nvram', domain);
    rmSync(`/var/log/libvirt/qemu/${domain}.log`, { force: true });
  }
  await removeTestStorage({ dataDir, pool });
  await libvirtd?.stop();
}, 120_000);

describe('libvirt_golden_capture (real libvirtd; stand-in disk and power-off, not Windows)', () => {
  it('captures the disk once the guest shuts off, and removes the installed guest', {
    timeout: 300_000,
  }, async () => {
    const guest = await installedGuest('w1');
    let quit: Promise<unknown> | undefined;
    const progress: string[] = [];
    const outcome = await capture(guest, (message) => {
      progress.push(message);
      // The guest powers off while kubemix waits (sysprep's /shutdown, here QEMU quitting).
      quit ??= lv('qemu-monitor-command', guest.domain, '{"execute":"quit"}');
    });
    await quit;
    expect(outcome.msg).toBe(
      `${golden.volume} captured from ${guest.domain}; the installed guest is removed`,
    );
    expect(outcome.failed).toBe(false);
    expect(progress[0]).toMatch(/^waiting for sysprep to shut .* off \(running \(booted\), /);
    expect(progress).toContain(`capturing ${guest.disk} as the golden volume ${golden.volume}`);

    // The golden volume: in the pool (refreshed), standalone, holding the disk's bytes.
    expect(await volumes()).toEqual([golden.volume]);
    const goldenPath = join(poolPath, golden.volume);
    const info = JSON.parse(
      (await execa('qemu-img', ['info', '--output=json', '-f', 'qcow2', goldenPath])).stdout,
    ) as { 'backing-filename'?: string };
    expect(info['backing-filename']).toBeUndefined();
    const read = await qemuIo(goldenPath, `read -P ${PATTERN} 0 1M`);
    expect(read.stdout).toMatch(/read 1048576\/1048576/);
    expect(read.stdout).not.toMatch(/Pattern verification failed/);
    expect(readdirSync(poolPath).filter((f) => f.endsWith('.partial'))).toEqual([]);
    // The installed guest is gone, and the state says so.
    expect((await lv('dominfo', guest.domain)).exitCode).not.toBe(0);
    expect(resources.filter((r) => r.status !== 'deleted')).toEqual([]);
  });

  it('keeps a golden volume another cluster captured first, and still removes the installed guest', {
    timeout: 300_000,
  }, async () => {
    const goldenPath = join(poolPath, golden.volume);
    expect((await qemuIo(goldenPath, 'write -P 0x11 0 1M')).exitCode).toBe(0); // "the other cluster's"
    const guest = await installedGuest('w2');
    await lv('qemu-monitor-command', guest.domain, '{"execute":"quit"}');
    const outcome = await capture(guest);
    expect(outcome.failed).toBe(false);
    expect((await qemuIo(goldenPath, 'read -P 0x11 0 1M')).stdout).not.toMatch(/Pattern verification failed/);
    expect(readdirSync(poolPath).filter((f) => f.endsWith('.partial'))).toEqual([]);
    expect(await volumes()).toEqual([golden.volume]);
  });

  it('captures nothing from a guest that was destroyed rather than shut down', {
    timeout: 300_000,
  }, async () => {
    await virsh('vol-delete', golden.volume, '--pool', pool);
    const guest = await installedGuest('w3');
    await virsh('destroy', guest.domain);
    const outcome = await capture(guest);
    expect(outcome.failed).toBe(true);
    expect(outcome.msg).toBe(
      `${guest.domain} is shut off (destroyed), not by sysprep's shutdown: its disk is not made the golden image`,
    );
    expect(existsSync(join(poolPath, golden.volume))).toBe(false);
    expect(await volumes()).toEqual([guest.disk]);
    await virsh('undefine', guest.domain);
    await virsh('vol-delete', guest.disk, '--pool', pool);
  });
});
