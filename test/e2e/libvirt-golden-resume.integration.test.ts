import { join } from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { powerOffLikeSysprep } from '../../fixtures/libvirt/golden.js';
import { leftovers } from '../../fixtures/libvirt/lab.js';
import { virsh } from '../../fixtures/libvirt/libvirtd.js';
import { markGeneralizingCommand } from '../../src/provider/libvirt/modules/golden-marker.js';
import { kubemix } from './helpers.js';
import { useGoldenTestCluster } from './libvirt-golden-cluster.js';

// `kubemix up` resumed after sysprep shut the first Windows guest off, on real libvirtd: the
// golden-image task runs again from its first step, finds the mark set before sysprep, and
// captures without watching the install. STAND-INS, not Windows: the "Windows ISO" boots nothing,
// so the state an interrupted run leaves is made by hand — the mark set with the very command
// libvirt_golden_mark runs, and "sysprep's power-off" as the guest's own ACPI power-off written
// through QEMU's monitor (libvirt reports `shut off (shutdown)`; golden-resume.integration.test.ts
// checks the module side).
const g = useGoldenTestCluster({ stem: 'kmxgres', downFlags: ['--purge-images'] });
const { domains } = g;

describe('kubemix up resumed after sysprep shut the first Windows guest off (stand-ins, no Windows)', () => {
  it('captures it without the install watch, makes the Windows guests as overlays, and down leaves nothing', {
    timeout: 15 * 60_000,
  }, async () => {
    const { cluster, spec, clusterDir } = g;
    const created = await kubemix(['up', spec, '--cluster-dir', clusterDir, '--stop-after', 'create-hosts']);
    expect(created.exitCode, `${created.stdout}\n${created.stderr}`).toBe(0);
    const first = `${cluster.name}.windows-01`;
    expect(await domains()).toEqual([`${cluster.name}.controller-01`, first]);

    // What an interrupted golden-image task leaves once sysprep ran: the mark, then the power-off.
    await execa('sh', ['-c', markGeneralizingCommand('qemu:///system', first)]);
    await powerOffLikeSysprep(first);

    const resumed = await kubemix(['up', spec, '--cluster-dir', clusterDir, '--stop-after', 'golden-image']);
    const output = `${resumed.stdout}\n${resumed.stderr}`;
    expect(resumed.exitCode, output).toBe(0);
    expect(output).not.toMatch(/Windows Setup/);
    const golden = g.goldenVolume();
    expect(await domains()).toEqual([`${cluster.name}.controller-01`, first, `${cluster.name}.windows-02`]);
    for (const node of ['windows-01', 'windows-02']) {
      const volume = await virsh('vol-dumpxml', '--pool', cluster.pool, `${cluster.name}.${node}.disk.qcow2`);
      expect(volume).toContain(`<path>${join(cluster.dataDir, 'pool', golden)}</path>`);
    }
    // What the resumed task's first step decided (the last step registers nothing).
    expect(await g.goldenDecision()).toBe('generalizing');

    const down = await kubemix(['down', spec, '--cluster-dir', clusterDir, '--purge-images']);
    expect(down.exitCode, `${down.stdout}\n${down.stderr}`).toBe(0);
    expect(await leftovers(cluster)).toEqual([]);
    expect((await virsh('vol-list', '--pool', cluster.pool)).trim()).toBe('');
  });
});
