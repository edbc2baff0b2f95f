import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { claimNetwork, uniqueTestCluster } from '../../../fixtures/libvirt/test-cluster.js';
import { testTempDir } from '../../helpers/temp.js';

// The libvirt tests' /24s (fixtures/libvirt/test-cluster.ts): a CI run's golden-resume test failed
// its leak check when another file had picked the same /24 before either network existed.
describe("the libvirt tests' network claims", () => {
  it('gives files picking at once distinct /24s', async () => {
    const dir = await testTempDir('network-claims');
    // 120 at once out of the ~250 free: without claims, two random picks collide almost surely.
    const clusters = await Promise.all(Array.from({ length: 120 }, () => uniqueTestCluster('claims', dir)));
    expect(new Set(clusters.map((c) => c.cidr)).size).toBe(120);
  });

  it('lets one of several claimers of the same /24 have it', async () => {
    const dir = await testTempDir('network-claims');
    const won = await Promise.all(Array.from({ length: 8 }, () => claimNetwork(7, dir)));
    expect(won.filter(Boolean)).toHaveLength(1);
  });

  it("takes over the claim of a process that has ended, never a live one's", async () => {
    const dir = await testTempDir('network-claims');
    const ended = execa('true');
    await ended;
    await mkdir(join(dir, '9'));
    await writeFile(join(dir, '9', 'pid'), String(ended.pid));
    expect(await claimNetwork(9, dir)).toBe(true);
    expect(await readFile(join(dir, '9', 'pid'), 'utf8')).toBe(String(process.pid));
    // pid 1 lives as long as the machine.
    await mkdir(join(dir, '10'));
    await writeFile(join(dir, '10', 'pid'), '1');
    expect(await claimNetwork(10, dir)).toBe(false);
  });
});
