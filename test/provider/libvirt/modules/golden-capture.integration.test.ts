import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type GoldenTestHypervisor,
  goldenTestHypervisor,
  powerOffLikeSysprep,
  removeDomains,
  STAND_IN_GOLDEN,
  virshResult,
} from '../../../../fixtures/libvirt/golden.js';
import { ensureLibvirtd, type TestLibvirtd, virsh } from '../../../../fixtures/libvirt/libvirtd.js';
import { libvirtGoldenCaptureModule } from '../../../../src/provider/libvirt/modules/index.js';

// libvirt_golden_capture on a real libvirtd, QEMU (TCG) and qemu-img, through kubemix's local
// transport. STAND-INS, not Windows: the "generalized Windows disk" is a small qcow2 volume with a
// known byte pattern, attached to a small domain that boots nothing; "sysprep shuts Windows off"
// is the guest's own ACPI power-off written through QEMU's monitor (fixtures/libvirt/golden.ts),
// which libvirt reports as `shut off (shutdown)` (checked here, not assumed). What is proven: the
// wait sees the guest stop while kubemix waits, the disk becomes the golden volume, the installed
// guest goes, and a guest stopped any other way (virsh destroy) is not captured.

const PATTERN = '0x5a';
let libvirtd: TestLibvirtd;
let hv: GoldenTestHypervisor;
const domains: string[] = [];
const golden = STAND_IN_GOLDEN;

const qemuIo = (file: string, command: string) =>
  execa('qemu-io', ['-f', 'qcow2', '-c', command, file], { reject: false });

/** A cluster's installed guest as create-hosts leaves it: a domain of the cluster on its disk volume, running. */
async function installedGuest(node: string): Promise<{ domain: string; disk: string }> {
  const { name: cluster, pool, dataDir } = hv.cluster;
  const domain = `${cluster}.${node}`;
  const disk = `${cluster}.${node}.disk.qcow2`;
  await virsh('vol-create-as', pool, disk, '64M', '--format', 'qcow2');
  expect((await qemuIo(join(hv.poolPath, disk), `write -P ${PATTERN} 0 1M`)).exitCode).toBe(0);
  const file = join(dataDir, `${node}.xml`);
  writeFileSync(
    file,
    `<domain type="qemu"><name>${domain}</name><memory unit="MiB">64</memory><vcpu>1</vcpu><os><type arch="x86_64">hvm</type></os><features><acpi/></features><devices><disk type="volume" device="disk"><driver name="qemu" type="qcow2"/><source pool="${pool}" volume="${disk}"/><target dev="vda" bus="virtio"/></disk></devices></domain>`,
  );
  domains.push(domain);
  await virsh('define', file);
  await virsh('start', domain);
  hv.resources.push(
    {
      provider: 'libvirt',
      kind: 'domain',
      name: domain,
      location: hv.host.name,
      status: 'created',
      details: { node },
    },
    {
      provider: 'libvirt',
      kind: 'volume',
      name: disk,
      location: hv.host.name,
      status: 'created',
      details: { pool },
    },
  );
  return { domain, disk };
}

const capture = (guest: { domain: string; disk: string }, onProgress?: (message: string) => void) =>
  hv.run(
    libvirtGoldenCaptureModule,
    {
      ...hv.common,
      domain: guest.domain,
      node: guest.domain.slice(hv.cluster.name.length + 1),
      disk: guest.disk,
      golden: golden.volume,
      timeoutMinutes: 5,
    },
    onProgress,
  );

const volumes = async () =>
  (await virsh('vol-list', hv.cluster.pool))
    .split('\n')
    .map((l) => l.trim().split(/\s+/)[0])
    .filter(Boolean);

beforeAll(async () => {
  libvirtd = await ensureLibvirtd();
  hv = await goldenTestHypervisor('kmx-capture');
}, 120_000);

afterAll(async () => {
  await removeDomains(domains);
  await hv?.remove();
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
      // The guest powers off while kubemix waits (sysprep's /shutdown, here its ACPI power-off).
      quit ??= powerOffLikeSysprep(guest.domain);
    });
    await quit;
    expect(outcome.msg).toBe(
      `${golden.volume} captured from ${guest.domain}; the installed guest is removed`,
    );
    expect(outcome.failed, outcome.msg).toBe(false);
    expect(progress[0]).toMatch(/^waiting for sysprep to shut .* off \(running \(booted\), /);
    expect(progress).toContain(`capturing ${guest.disk} as the golden volume ${golden.volume}`);

    // The golden volume: in the pool (refreshed), standalone, holding the disk's bytes.
    expect(await volumes()).toEqual([golden.volume]);
    const goldenPath = join(hv.poolPath, golden.volume);
    const info = JSON.parse(
      (await execa('qemu-img', ['info', '--output=json', '-f', 'qcow2', goldenPath])).stdout,
    ) as { 'backing-filename'?: string };
    expect(info['backing-filename']).toBeUndefined();
    const read = await qemuIo(goldenPath, `read -P ${PATTERN} 0 1M`);
    expect(read.stdout).toMatch(/read 1048576\/1048576/);
    expect(read.stdout).not.toMatch(/Pattern verification failed/);
    expect(readdirSync(hv.poolPath).filter((f) => f.endsWith('.partial'))).toEqual([]);
    // The installed guest is gone, and the state says so.
    expect((await virshResult('dominfo', guest.domain)).exitCode).not.toBe(0);
    expect(hv.resources.filter((r) => r.status !== 'deleted')).toEqual([]);
  });

  it('keeps a golden volume another cluster captured first, and still removes the installed guest', {
    timeout: 300_000,
  }, async () => {
    const goldenPath = join(hv.poolPath, golden.volume);
    expect((await qemuIo(goldenPath, 'write -P 0x11 0 1M')).exitCode).toBe(0); // "the other cluster's"
    const guest = await installedGuest('w2');
    await powerOffLikeSysprep(guest.domain);
    const outcome = await capture(guest);
    expect(outcome.failed, outcome.msg).toBe(false);
    expect((await qemuIo(goldenPath, 'read -P 0x11 0 1M')).stdout).not.toMatch(/Pattern verification failed/);
    expect(readdirSync(hv.poolPath).filter((f) => f.endsWith('.partial'))).toEqual([]);
    expect(await volumes()).toEqual([golden.volume]);
  });

  it('captures nothing from a guest that was destroyed rather than shut down', {
    timeout: 300_000,
  }, async () => {
    await virsh('vol-delete', golden.volume, '--pool', hv.cluster.pool);
    const guest = await installedGuest('w3');
    await virsh('destroy', guest.domain);
    const outcome = await capture(guest);
    expect(outcome.failed, outcome.msg).toBe(true);
    expect(outcome.msg).toBe(
      `${guest.domain} is shut off (destroyed), not by sysprep's shutdown: its disk is not made the golden image`,
    );
    expect(existsSync(join(hv.poolPath, golden.volume))).toBe(false);
    expect(await volumes()).toEqual([guest.disk]);
    await virsh('undefine', guest.domain);
    await virsh('vol-delete', guest.disk, '--pool', hv.cluster.pool);
  });
});
