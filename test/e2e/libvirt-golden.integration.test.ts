import { execFileSync } from 'node:child_process';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { leftovers } from '../../fixtures/libvirt/lab.js';
import { virsh } from '../../fixtures/libvirt/libvirtd.js';
import { kubemix } from './helpers.js';
import { useGoldenTestCluster } from './libvirt-golden-cluster.js';

// `kubemix up` with `windows.goldenImage: true` on real libvirtd, as far as it can go without
// Windows: the plan says which path each Windows guest takes, create-hosts finds no golden volume
// and makes only the first Windows guest (installed from the ISO), and the golden-image task —
// run by a second `up`, so its decision comes from the state — watches that install and gives up
// at the spec's time. STAND-IN: the "Windows ISO" boots nothing, so nothing is generalized or
// captured here (test/modules/libvirt/golden-flow.integration.test.ts runs those steps).
const g = useGoldenTestCluster({ stem: 'kmxgold' });
const { domains } = g;

describe('kubemix up with windows.goldenImage on libvirt (stand-in ISO, no Windows)', () => {
  it('plan shows the golden-image task and which path each Windows guest takes', async () => {
    const { spec, clusterDir } = g;
    // --detail: the golden-image path of each guest, on its host line (the summary leaves it out).
    const planned = await kubemix(['plan', spec, '--cluster-dir', clusterDir, '--detail']);
    expect(planned.exitCode, planned.stderr).toBe(0);
    expect(planned.stdout).toMatch(/^ {2}golden-image \(after create-hosts\)$/m);
    expect(planned.stdout).toMatch(/^ {2}wait-for-hosts \(after golden-image\)$/m);
    expect(planned.stdout).toMatch(
      /windows-01 .*; installs from ISO, then generalized into golden-windows-2022-[0-9a-f]{16}\.qcow2; overlay on it from the start if the hypervisor has it \(decided at create-hosts\)$/m,
    );
    expect(planned.stdout).toMatch(/windows-02 .*; overlay on golden-windows-2022-[0-9a-f]{16}\.qcow2$/m);
  });

  it('create-hosts without a golden volume makes only the first Windows guest, installed from the ISO', {
    timeout: 10 * 60_000,
  }, async () => {
    const { cluster, spec, clusterDir } = g;
    const created = await kubemix(['up', spec, '--cluster-dir', clusterDir, '--stop-after', 'create-hosts']);
    expect(created.exitCode, `${created.stdout}\n${created.stderr}`).toBe(0);
    expect(await domains()).toEqual([`${cluster.name}.controller-01`, `${cluster.name}.windows-01`]);
    const xml = await virsh('dumpxml', `${cluster.name}.windows-01`);
    // The Windows ISO is attached: this guest installs (virsh writes attributes in single quotes).
    expect(xml).toMatch(/<source pool='[^']+' volume='base-sha256-[0-9a-f]{16}\.iso'/);
    expect(await g.goldenDecision()).toBe('capture');
  });

  it('the golden-image task watches the first install and gives up at the spec time; windows-02 is never made', {
    timeout: 6 * 60_000,
  }, async () => {
    const { cluster, spec, clusterDir } = g;
    const waited = await kubemix(['up', spec, '--cluster-dir', clusterDir, '--stop-after', 'golden-image']);
    expect(waited.exitCode, waited.stdout).toBe(1);
    expect(waited.stdout).toMatch(
      /WAIT {2}golden-image hypervisor-01: Windows Setup copying the image \(domain running \(booted\), 0 reboots seen, disk [\d.]+ GiB, 0m\d\ds of 1m00s\)/,
    );
    expect(waited.stderr + waited.stdout).toMatch(/the Windows install did not finish in time/);
    expect(await domains()).toEqual([`${cluster.name}.controller-01`, `${cluster.name}.windows-01`]);
  });

  it('down removes everything of the cluster; no golden volume was made', async () => {
    const { cluster, spec, clusterDir } = g;
    const down = await kubemix(['down', spec, '--cluster-dir', clusterDir, '--purge-images']);
    expect(down.exitCode, `${down.stdout}\n${down.stderr}`).toBe(0);
    expect(await leftovers(cluster)).toEqual([]);
    expect((await virsh('vol-list', '--pool', cluster.pool)).trim()).toBe('');
  });
});

describe('kubemix up with windows.goldenImage when the hypervisor has the golden volume', () => {
  // The controller boots a STAND-IN disk (nothing, fixtures/libvirt/windows-spec.ts): wait-for-hosts
  // gives up on it at the spec's one minute of boot time, beside the Windows guests' watch. The
  // test's limit only guards a hang, and on a timeout the run is stopped (SIGTERM) so it never
  // holds the cluster's lock.
  it('fetches no Windows ISO, makes every Windows guest an overlay on it at create-hosts; the golden-image task captures nothing; wait-for-hosts watches them as specialize', {
    timeout: 20 * 60_000,
  }, async ({ signal }) => {
    const { cluster, spec, clusterDir } = g;
    // A STAND-IN golden volume (an empty qcow2, not a generalized Windows), where a capture puts it
    // (the pool's directory; prepare-provider defines the pool there when it is not).
    const golden = g.goldenVolume();
    await mkdir(join(cluster.dataDir, 'pool'), { recursive: true });
    execFileSync('qemu-img', ['create', '-q', '-f', 'qcow2', join(cluster.dataDir, 'pool', golden), '1G']);
    const prepared = await kubemix([
      'up',
      spec,
      '--cluster-dir',
      clusterDir,
      '--stop-after',
      'prepare-provider',
    ]);
    expect(prepared.exitCode, `${prepared.stdout}\n${prepared.stderr}`).toBe(0);
    // Only the Linux image is cached: no guest of this hypervisor installs from the ISO.
    await virsh('pool-refresh', cluster.pool);
    expect(
      (await virsh('vol-list', '--pool', cluster.pool))
        .split('\n')
        .map((l) => l.trim().split(/\s+/)[0])
        .filter(Boolean)
        .sort(),
    ).toEqual([expect.stringMatching(/^base-sha256-[0-9a-f]{16}\.qcow2$/), golden]);

    const up = await kubemix(['up', spec, '--cluster-dir', clusterDir, '--stop-after', 'golden-image']);
    expect(up.exitCode, `${up.stdout}\n${up.stderr}`).toBe(0);
    expect(await domains()).toEqual([
      `${cluster.name}.controller-01`,
      `${cluster.name}.windows-01`,
      `${cluster.name}.windows-02`,
    ]);
    for (const node of ['windows-01', 'windows-02']) {
      const volume = await virsh('vol-dumpxml', '--pool', cluster.pool, `${cluster.name}.${node}.disk.qcow2`);
      expect(volume).toContain(`<path>${join(cluster.dataDir, 'pool', golden)}</path>`);
      // No install medium: the overlay only specializes.
      expect(await virsh('dumpxml', `${cluster.name}.${node}`)).not.toMatch(
        /volume='base-sha256-[0-9a-f]{16}\.iso'/,
      );
    }
    expect(await g.goldenDecision()).toBe('exists');

    // The overlays boot the stand-in volume (nothing): wait-for-hosts watches them as what an
    // overlay runs, specialize from the golden image, never as Windows Setup's install phases.
    const waited = await kubemix(
      ['up', spec, '--cluster-dir', clusterDir, '--stop-after', 'wait-for-hosts'],
      {},
      { signal },
    );
    expect(waited.exitCode, waited.stdout).toBe(1);
    for (const node of ['windows-01', 'windows-02'])
      expect(waited.stdout).toMatch(
        new RegExp(
          `WAIT {2}wait-for-hosts ${node}: Windows specialize from the golden image \\(domain running \\(booted\\), 0 reboots seen, disk [\\d.]+ GiB, 0m\\d\\ds of 1m00s\\)`,
        ),
      );
    expect(waited.stdout).not.toMatch(/wait-for-hosts windows-0\d: Windows Setup/);
    expect(waited.stderr + waited.stdout).toMatch(
      /Windows specialize from the golden image did not finish in time/,
    );
    expect(waited.stdout + waited.stderr).toMatch(
      /task wait-for-hosts failed on host controller-01: step "wait for connection"[^\n]*host did not come back within 60000 ms/,
    );

    // down keeps the golden volume for the next cluster; --purge-images removes it once unused.
    const down = await kubemix(['down', spec, '--cluster-dir', clusterDir, '--purge-images']);
    expect(down.exitCode, `${down.stdout}\n${down.stderr}`).toBe(0);
    expect(await leftovers(cluster)).toEqual([]);
    expect((await virsh('vol-list', '--pool', cluster.pool)).trim()).toBe('');
  });
});
