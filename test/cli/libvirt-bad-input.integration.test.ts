import { readdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { leftovers, removeTestStorage, testImage, writeLibvirtSpec } from '../../fixtures/libvirt/lab.js';
import { ensureLibvirtd, type TestLibvirtd, virsh } from '../../fixtures/libvirt/libvirtd.js';
import { readState } from '../../src/engine/index.js';
import { kubemix, tempClusterDir } from '../e2e/helpers.js';

// Bad input against a real libvirtd: one clear line naming the problem, exit 2 for input and 1
// for the machine, and nothing half-created (no resource recorded, nothing of the cluster on the
// hypervisor, no partial download in the pool). None of these starts a guest.
const storage = { dataDir: '/var/lib/kubemix-tests-input', pool: 'kubemix-tests-input' };
let libvirtd: TestLibvirtd;
let image: { path: string; sha256: string };
const temporary: string[] = [];
const tempDir = async () => {
  const dir = await tempClusterDir();
  temporary.push(dir);
  return dir;
};

async function attempt(
  name: string,
  cidr: string,
  options: { sha256?: string; memoryGiB?: number; diskGiB?: number } = {},
) {
  const clusterDir = join(await tempDir(), 'cluster');
  const spec = await writeLibvirtSpec(join(clusterDir, '..', `${name}.yaml`), {
    name,
    cidr,
    image: { source: image.path, sha256: options.sha256 ?? image.sha256 },
    ...storage,
    ...(options.memoryGiB ? { memoryGiB: options.memoryGiB } : {}),
    ...(options.diskGiB ? { diskGiB: options.diskGiB } : {}),
  });
  const up = await kubemix(['up', spec, '--cluster-dir', clusterDir]);
  return { up, clusterDir, spec, output: `${up.stdout}\n${up.stderr}` };
}

/** Nothing of the cluster exists and the state recorded nothing. */
async function nothingMade(name: string, cidr: string, clusterDir: string) {
  expect(await leftovers({ name, cidr, ...storage })).toEqual([]);
  expect((await readState(clusterDir))?.resources ?? []).toEqual([]);
  const pool = await readdir(join(storage.dataDir, 'pool')).catch(() => []);
  expect(pool.filter((f) => f.includes('partial'))).toEqual([]);
}

beforeAll(async () => {
  libvirtd = await ensureLibvirtd();
  image = await testImage();
}, 20 * 60_000);

afterAll(async () => {
  for (const dir of temporary) await rm(dir, { recursive: true, force: true });
  await removeTestStorage(storage);
  await libvirtd?.stop();
});

describe('libvirt bad input', () => {
  it('an image whose digest does not match: exit 2, the download removed, nothing created', async () => {
    const wrong = 'ab'.repeat(32);
    const { up, clusterDir, output } = await attempt('kmxbad1', '10.213.31.0/24', { sha256: wrong });
    expect(up.exitCode, output).toBe(2);
    expect(output).toContain(`has SHA256 ${image.sha256}, expected ${wrong}`);
    await nothingMade('kmxbad1', '10.213.31.0/24', clusterDir);
  });

  it('not enough RAM and not enough disk: both reported at once, naming the hypervisor and the numbers; exit 1', async () => {
    const { up, clusterDir, output } = await attempt('kmxbad2', '10.213.32.0/24', {
      memoryGiB: 1024,
      diskGiB: 65536,
    });
    expect(up.exitCode, output).toBe(1);
    expect(output).toMatch(
      /hypervisor-01 \(localhost\): not enough free memory: the 1 guest\(s\) placed here need 1048576 MiB, \d+ MiB available/,
    );
    expect(output).toMatch(
      /hypervisor-01 \(localhost\): not enough disk in \S+: the guests' disks may grow to 65536 GiB, [\d.]+ GiB free/,
    );
    await nothingMade('kmxbad2', '10.213.32.0/24', clusterDir);
  });

  it('a network overlapping an existing libvirt network: exit 2 naming it', async () => {
    const xml = join(await tempDir(), 'net.xml');
    await writeFile(
      xml,
      "<network><name>kmxbad-other</name><ip address='10.213.33.1' prefix='24'/></network>",
    );
    await virsh('net-define', xml);
    try {
      const { up, clusterDir, output } = await attempt('kmxbad3', '10.213.33.128/25');
      expect(up.exitCode, output).toBe(2);
      expect(output).toContain(
        'the cluster network 10.213.33.128/25 overlaps libvirt network kmxbad-other (10.213.33.1/24)',
      );
      await nothingMade('kmxbad3', '10.213.33.128/25', clusterDir);
    } finally {
      await virsh('net-undefine', 'kmxbad-other');
    }
  });

  it('a cluster name already in use on the hypervisor: exit 2 naming what uses it', async () => {
    const xml = join(await tempDir(), 'domain.xml');
    await writeFile(
      xml,
      "<domain type='qemu'><name>kmxbad4.controller-01</name><memory unit='MiB'>64</memory><os><type arch='x86_64' machine='pc'>hvm</type></os></domain>",
    );
    await virsh('define', xml);
    try {
      const { up, output } = await attempt('kmxbad4', '10.213.34.0/24');
      expect(up.exitCode, output).toBe(2);
      expect(output).toContain(
        'the cluster name "kmxbad4" is already in use here (domain kmxbad4.controller-01)',
      );
      // The other cluster's domain is left alone.
      expect((await virsh('list', '--all', '--name')).split('\n')).toContain('kmxbad4.controller-01');
    } finally {
      await virsh('undefine', 'kmxbad4.controller-01');
    }
  });

  it('a network overlapping the pod CIDR: a spec error naming the option, exit 2, before any task', async () => {
    const clusterDir = join(await tempDir(), 'cluster');
    const up = await kubemix([
      'up',
      'k8s-libvirt-1-0-1',
      '--name',
      'kmxbad5',
      '--network',
      '10.244.1.0/24',
      '--cluster-dir',
      clusterDir,
    ]);
    expect(up.exitCode).toBe(2);
    expect(up.stderr.trim()).toBe(
      'k8s-libvirt-1-0-1: --network: 10.244.1.0/24 overlaps network.podCIDR (10.244.0.0/16, the default)',
    );
    expect(await readState(clusterDir)).toBeUndefined();
  });

  it('Windows workers without the Windows ISO: exit 2 before anything is made', async () => {
    const clusterDir = join(await tempDir(), 'cluster');
    const up = await kubemix([
      'up',
      'k8s-libvirt-1-1-1',
      '--windows-workers',
      '1',
      '--name',
      'kmxbad6',
      '--network',
      '10.213.36.0/24',
      '--linux-image',
      image.path,
      '--cluster-dir',
      clusterDir,
    ]);
    expect(up.exitCode, up.stdout).toBe(2);
    expect(`${up.stdout}\n${up.stderr}`).toContain(
      'k8s-libvirt-1-1-1: --windows-iso: is required for Windows workers: the Windows Server evaluation ISO (--windows-iso PATH|URL with --windows-iso-sha256)',
    );
    expect(await readState(clusterDir)).toBeUndefined();
  });

  it('an unknown hypervisor: exit 1 naming it, nothing recorded', async () => {
    const clusterDir = join(await tempDir(), 'cluster');
    const up = await kubemix([
      'up',
      'k8s-libvirt-1-0-1',
      '--name',
      'kmxbad7',
      '--hypervisor',
      'root@no-such-hypervisor.invalid',
      '--cluster-dir',
      clusterDir,
    ]);
    expect(up.exitCode, up.stdout).toBe(1);
    expect(`${up.stdout}\n${up.stderr}`).toMatch(/hypervisor-01.*no-such-hypervisor\.invalid/);
    expect((await readState(clusterDir))?.resources ?? []).toEqual([]);
  });
});
