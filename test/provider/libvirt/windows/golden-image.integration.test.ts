import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureLibvirtd, type TestLibvirtd, virsh } from '../../../../fixtures/libvirt/libvirtd.js';
import { domainXml } from '../../../../src/provider/libvirt/domain-xml.js';
import type { GuestInput } from '../../../../src/provider/libvirt/guest-os.js';
import { cachedImage } from '../../../../src/provider/libvirt/image.js';
import { isoScript } from '../../../../src/provider/libvirt/iso.js';
import { macAddress } from '../../../../src/provider/libvirt/names.js';
import { dirPoolXml, overlayVolumeXml } from '../../../../src/provider/libvirt/storage-xml.js';
import { windowsConfigFiles } from '../../../../src/provider/libvirt/windows/config-iso.js';
import { captureGoldenCommand, goldenImage } from '../../../../src/provider/libvirt/windows/golden-cache.js';
import {
  CONFIG_ISO_LABEL,
  chooseHyperv,
  generateAdministratorPassword,
  stagedPath,
  supportedHypervFeatures,
} from '../../../../src/provider/libvirt/windows/index.js';
import { windowsGoldenGuest } from '../../../../src/provider/libvirt/windows-golden-guest.js';
import { testTempDir } from '../../../helpers/temp.js';

// The golden image's storage mechanics on a real libvirtd with real qemu-img, qemu-io,
// genisoimage/isoinfo and virt-xml-validate. Windows never runs here: the "installed, generalized
// Windows disk" is a STAND-IN, a small qcow2 volume with a known byte pattern written into it,
// so what is proven is the cache (capture, naming, standalone copy, overlays on it, what stays
// when a cluster's volumes go), the specialize config ISO and the overlay guest's domain XML —
// not that Windows boots from it.

const run = randomBytes(3).toString('hex');
const cluster = `kmx-golden-${run}`;
const pool = `kubemix-tests-golden-${run}`;
let libvirtd: TestLibvirtd;
let poolPath: string;

const golden = goldenImage({
  windowsIso: cachedImage({ source: '/isos/ws2022.iso', sha256: 'a'.repeat(64) }, 'iso'),
  version: '2022',
  image: { name: 'Windows Server 2022 SERVERDATACENTERCORE' },
});
const PATTERN = '0x5a';
const MIB = 1024 * 1024;

const qemuIo = (file: string, command: string) =>
  execa('qemu-io', ['-f', 'qcow2', '-c', command, file], { reject: false });
const volumes = async () => (await virsh('vol-list', pool)).split('\n').map((l) => l.trim().split(/\s+/)[0]);

function guestInput(node: string): GuestInput {
  return {
    cluster,
    node,
    hypervisor: 'hypervisor-01',
    vcpus: 1,
    memoryMiB: 1024,
    diskGiB: 1,
    ip: '10.0.0.14',
    mac: macAddress(cluster, node),
    network: `${cluster}.hypervisor-01.network`,
    dnsDomain: `${cluster}.kubemix.internal`,
    dataDir: dirname(poolPath),
    publicKey: 'ssh-ed25519 AAAA kubemix',
    connection: 'winrm',
    images: {},
    windows: { version: '2022', computerName: 'w2' },
  };
}

beforeAll(async () => {
  libvirtd = await ensureLibvirtd();
  poolPath = join(await testTempDir('golden-pool'), 'pool');
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

describe('golden volume in the image cache (real libvirtd, qemu-img; stand-in disk, not Windows)', () => {
  it('captures the first guest disk as a standalone cached volume, which overlays of another node use after the disk is gone', {
    timeout: 300_000,
  }, async () => {
    // The first guest's disk, as create-hosts makes a blank one; the pattern stands for "Windows".
    const installed = `${cluster}.w1.disk.qcow2`;
    await virsh('vol-create-as', pool, installed, '64M', '--format', 'qcow2');
    expect((await qemuIo(join(poolPath, installed), `write -P ${PATTERN} 0 1M`)).exitCode).toBe(0);

    await execa('sh', [
      '-c',
      captureGoldenCommand({
        sourcePath: join(poolPath, installed),
        poolPath,
        volume: golden.volume,
        cluster,
      }),
    ]);
    await virsh('pool-refresh', pool);
    expect(await volumes()).toContain(golden.volume);
    const goldenPath = join(poolPath, golden.volume);
    const info = JSON.parse(
      (await execa('qemu-img', ['info', '--output=json', '-f', 'qcow2', goldenPath])).stdout,
    ) as { format: string; 'backing-filename'?: string };
    expect(info.format).toBe('qcow2');
    expect(info['backing-filename']).toBeUndefined();
    expect(statSync(goldenPath).mode & 0o777).toBe(0o644);
    expect((await volumes()).some((v) => v.endsWith('.partial'))).toBe(false);

    // The first guest's own disk goes (it becomes an overlay too): the golden volume stands alone.
    await virsh('vol-delete', installed, '--pool', pool);

    const guest = windowsGoldenGuest(guestInput('w2'), golden);
    const system = guest.disks[0]!;
    if (system.source.kind !== 'golden-overlay') throw new Error('no golden overlay');
    const xmlFile = join(dirname(poolPath), `${system.volume}.xml`);
    writeFileSync(
      xmlFile,
      overlayVolumeXml({
        name: system.volume,
        sizeGiB: system.source.sizeGiB,
        basePath: goldenPath,
        baseFormat: 'qcow2',
      }),
    );
    await virsh('vol-create', pool, xmlFile);
    const overlay = join(poolPath, system.volume);
    const chain = JSON.parse(
      (await execa('qemu-img', ['info', '--output=json', '--backing-chain', '-f', 'qcow2', overlay])).stdout,
    ) as Array<{ filename: string; 'virtual-size': number }>;
    expect(chain.map((c) => c.filename)).toEqual([overlay, goldenPath]);
    expect(chain[0]!['virtual-size']).toBe(1024 * MIB);
    // "Windows" is read through the overlay; the overlay's writes never reach the golden volume.
    const throughOverlay = await qemuIo(overlay, `read -P ${PATTERN} 0 1M`);
    expect(throughOverlay.stdout).toMatch(/read 1048576\/1048576/);
    expect(throughOverlay.stdout).not.toMatch(/Pattern verification failed/);
    expect((await qemuIo(overlay, 'write -P 0x00 0 1M')).exitCode).toBe(0);
    // The pattern check does fail where the bytes differ (the overlay now holds zeros).
    expect((await qemuIo(overlay, `read -P ${PATTERN} 0 1M`)).stdout).toMatch(/Pattern verification failed/);
    const stillGolden = await qemuIo(goldenPath, `read -P ${PATTERN} 0 1M`);
    expect(stillGolden.stdout).toMatch(/read 1048576\/1048576/);
    expect(stillGolden.stdout).not.toMatch(/Pattern verification failed/);

    // The cluster's volumes go on down; the golden volume stays for the next cluster.
    await virsh('vol-delete', system.volume, '--pool', pool);
    expect(await volumes()).toEqual([golden.volume]);
  });

  it("writes the specialize config ISO (0600, Joliet names) and a domain XML libvirt's schema accepts", async () => {
    const guest = windowsGoldenGuest(guestInput('w2'), golden);
    const config = guest.disks[1]!;
    if (config.source.kind !== 'windows-config') throw new Error('no config CD-ROM');
    const password = generateAdministratorPassword();
    const files = windowsConfigFiles(config.source.answers ?? 'install', {
      ...config.source.config,
      administratorPassword: password,
    });
    const staging = join(dirname(poolPath), 'staging');
    mkdirSync(staging, { mode: 0o700 });
    for (const file of files) {
      const path = stagedPath(staging, file);
      mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
      writeFileSync(path, file.content, { mode: 0o600 });
    }
    const iso = join(poolPath, config.volume);
    await execa('sh', [
      '-c',
      isoScript({ source: staging, output: iso, label: CONFIG_ISO_LABEL, secret: true }),
    ]);
    expect(statSync(iso).mode & 0o777).toBe(0o600);
    const listing = execFileSync('isoinfo', ['-J', '-f', '-i', iso], { encoding: 'utf8' });
    expect(listing.split('\n').filter(Boolean).sort()).toEqual([
      '/Autounattend.xml',
      '/kubemix',
      '/kubemix/first-logon.ps1',
    ]);
    const answer = execFileSync('isoinfo', ['-J', '-i', iso, '-x', '/Autounattend.xml'], {
      encoding: 'utf8',
    });
    // Compared without printing the password on failure.
    expect(answer === files[0]!.content).toBe(true);
    expect(answer.includes('<settings pass="windowsPE">')).toBe(false);
    expect(answer.includes('<settings pass="specialize">')).toBe(true);
    expect(execFileSync('isoinfo', ['-d', '-i', iso], { encoding: 'utf8' })).toMatch(/^Volume id: KUBEMIX$/m);
    rmSync(iso);

    const caps = readFileSync(
      new URL('../../../../fixtures/libvirt/domcapabilities-qemu-tcg-q35.xml', import.meta.url),
      'utf8',
    );
    const xml = domainXml(guest, {
      accel: 'qemu',
      pool,
      cluster,
      hyperv: chooseHyperv(supportedHypervFeatures(caps)),
    });
    const file = join(dirname(poolPath), 'domain.xml');
    writeFileSync(file, xml);
    execFileSync('virt-xml-validate', [file, 'domain'], { stdio: 'pipe' });
    // Two devices: the overlay and the config CD-ROM, both volumes of the cluster; no install media.
    const sources = [...xml.matchAll(/<source pool="([^"]*)" volume="([^"]*)"\/>/g)].map((m) => m[2]);
    expect(sources).toEqual([`${cluster}.w2.disk.qcow2`, `${cluster}.w2.config.iso`]);
    expect(xml.includes(password)).toBe(false);
  });
});
