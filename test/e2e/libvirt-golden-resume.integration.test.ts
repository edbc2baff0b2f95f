import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { powerOffLikeSysprep } from '../../fixtures/libvirt/golden.js';
import { leftovers } from '../../fixtures/libvirt/lab.js';
import { ensureLibvirtd, type TestLibvirtd, virsh } from '../../fixtures/libvirt/libvirtd.js';
import type { TestCluster } from '../../fixtures/libvirt/test-cluster.js';
import {
  removeWindowsTestCluster,
  type WindowsTestCluster,
  writeWindowsTestSpec,
} from '../../fixtures/libvirt/windows-spec.js';
import { markGeneralizingCommand } from '../../src/modules/libvirt/golden-marker.js';
import { cachedImage } from '../../src/provider/libvirt/image.js';
import { goldenImage } from '../../src/provider/libvirt/windows/golden-cache.js';
import { defaultWindowsImage } from '../../src/provider/libvirt/windows/guest.js';
import { kubemix, tempClusterDir } from './helpers.js';

// `kubemix up` resumed after sysprep shut the first Windows guest off, on real libvirtd: the
// golden-image task runs again from its first step, finds the mark set before sysprep, and
// captures without watching the install. STAND-INS, not Windows: the "Windows ISO" boots nothing,
// so the state an interrupted run leaves is made by hand — the mark set with the very command
// libvirt_golden_mark runs, and "sysprep's power-off" as QEMU told to quit over QMP (libvirt
// reports `shut off (shutdown)`; golden-resume.integration.test.ts checks the module side).
let test: WindowsTestCluster | undefined;
let cluster: TestCluster;
let libvirtd: TestLibvirtd;
let spec: string;
let clusterDir: string;
let windowsIso: { source: string; sha256: string };

const domains = async () =>
  (await virsh('list', '--all', '--name'))
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l.startsWith(`${cluster.name}.`))
    .sort();

beforeAll(async () => {
  libvirtd = await ensureLibvirtd();
  test = await writeWindowsTestSpec({
    stem: 'kmxgres',
    dir: await tempClusterDir(),
    windows: 2,
    goldenImage: true,
  });
  ({ cluster, spec, clusterDir, windowsIso } = test);
}, 20 * 60_000);

afterAll(async () => {
  await removeWindowsTestCluster(test, (t) =>
    kubemix(['down', t.spec, '--cluster-dir', t.clusterDir, '--purge-images']),
  );
  await libvirtd?.stop();
}, 10 * 60_000);

describe('kubemix up resumed after sysprep shut the first Windows guest off (stand-ins, no Windows)', () => {
  it('captures it without the install watch, makes the Windows guests as overlays, and down leaves nothing', {
    timeout: 15 * 60_000,
  }, async () => {
    const created = await kubemix(['up', spec, '--cluster-dir', clusterDir, '--stop-after', 'create-hosts']);
    expect(created.exitCode, `${created.stdout}\n${created.stderr}`).toBe(0);
    const first = `${cluster.name}.windows-01`;
    expect(await domains()).toEqual([`${cluster.name}.controller-01`, first]);

    // What an interrupted golden-image task leaves once sysprep ran: the mark, then the power-off.
    await execa('sh', ['-c', markGeneralizingCommand('qemu:///system', first)]);
    // QEMU may drop the monitor before it answers `quit`: the capture below checks the shut-off.
    await powerOffLikeSysprep(first);

    const resumed = await kubemix(['up', spec, '--cluster-dir', clusterDir, '--stop-after', 'golden-image']);
    const output = `${resumed.stdout}\n${resumed.stderr}`;
    expect(resumed.exitCode, output).toBe(0);
    expect(output).not.toMatch(/Windows Setup/);
    const golden = goldenImage({
      windowsIso: cachedImage(windowsIso, 'iso'),
      version: '2022',
      image: defaultWindowsImage('2022'),
    }).volume;
    expect(await domains()).toEqual([`${cluster.name}.controller-01`, first, `${cluster.name}.windows-02`]);
    for (const node of ['windows-01', 'windows-02']) {
      const volume = await virsh('vol-dumpxml', '--pool', cluster.pool, `${cluster.name}.${node}.disk.qcow2`);
      expect(volume).toContain(`<path>${join(cluster.dataDir, 'pool', golden)}</path>`);
    }
    const state = JSON.parse(await readFile(join(clusterDir, 'state.json'), 'utf8')) as {
      outputs: Record<string, Record<string, { golden?: string }>>;
    };
    // What the resumed task's first step decided (the last step registers nothing).
    expect(state.outputs['hypervisor-01']?.['libvirt_guests']?.golden).toBe('generalizing');

    const down = await kubemix(['down', spec, '--cluster-dir', clusterDir, '--purge-images']);
    expect(down.exitCode, `${down.stdout}\n${down.stderr}`).toBe(0);
    expect(await leftovers(cluster)).toEqual([]);
    expect((await virsh('vol-list', '--pool', cluster.pool)).trim()).toBe('');
  });
});
