import { execFileSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  powerOffLikeSysprep,
  STAND_IN_GOLDEN,
  STAND_IN_WINDOWS_ISO,
} from '../../../../fixtures/libvirt/golden.js';
import { virsh } from '../../../../fixtures/libvirt/libvirtd.js';
import {
  libvirtGoldenCaptureModule,
  libvirtGuestsModule,
  libvirtRemoveConfigIsoModule,
} from '../../../../src/provider/libvirt/modules/index.js';
import { guestDeviceVars } from '../../../../src/provider/libvirt/node-host.js';
import { useGoldenWindowsGuests } from './golden-windows-guests.js';

// The hypervisor side of the golden image flow, module after module as `up` runs them on a
// hypervisor (create-hosts, then the golden-image task's hypervisor steps, then `down`), on a real
// libvirtd with QEMU under TCG, through kubemix's local transport. STAND-INS, not Windows: the
// "Windows ISO" is a small file that boots nothing, so the guests never run Windows; "sysprep
// shuts the guest off" is the guest's own ACPI power-off written through QEMU's monitor (libvirt
// reports `shut off (shutdown)`). The guest steps (first logon, generalize) are not run here (see
// windows-generalize.integration.test.ts for the generalize step on the Windows simulator).

const windowsIso = STAND_IN_WINDOWS_ISO;
const golden = STAND_IN_GOLDEN;
const nodes = ['win-1', 'win-2', 'win-3'];
const g = useGoldenWindowsGuests({ stem: 'kmx-gflow', nodes, bridge: 'kmxg' });

const clusterDomains = async (state: string) =>
  (await virsh('list', state, '--name'))
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l.startsWith(`${g.cluster}.`))
    .sort();
const backingOf = async (volume: string) =>
  /<backingStore>\s*<path>([^<]+)<\/path>/.exec(
    await virsh('vol-dumpxml', '--pool', g.hv.cluster.pool, volume),
  )?.[1];

describe('golden image flow on the hypervisor (real libvirtd + QEMU TCG; stand-ins, not Windows)', () => {
  it('installs the first guest, captures it, re-creates it and the others as overlays, and down leaves only the golden volume', {
    timeout: 600_000,
  }, async () => {
    const { hv, cluster, install, guestsArgs, captureArgs, passwords } = g;
    // create-hosts: no golden volume yet.
    const created = await hv.run(libvirtGuestsModule, guestsArgs);
    expect(created.msg ?? '').toBe('');
    expect(created).toMatchObject({
      failed: false,
      data: { golden: 'capture', guests: [`${cluster}.win-1`] },
    });
    expect(await clusterDomains('--all')).toEqual([`${cluster}.win-1`]);
    expect(await backingOf(`${cluster}.win-1.disk.qcow2`)).toBeUndefined();
    // The golden-image task decides again first: nothing new while the volume is still missing.
    const again = await hv.run(libvirtGuestsModule, guestsArgs);
    expect(again).toMatchObject({ failed: false, changed: false, data: { golden: 'capture' } });

    // The golden-image task's hypervisor steps (the guest's own steps run over its connection).
    const devices = guestDeviceVars(install);
    const ejected = await hv.run(libvirtRemoveConfigIsoModule, {
      uri: hv.common.uri,
      pool: hv.cluster.pool,
      domain: install.domain,
      volume: devices.libvirt_config_volume,
      target: devices.libvirt_config_target,
    });
    expect(ejected.failed).toBe(false);
    await powerOffLikeSysprep(install.domain);
    const captured = await hv.run(libvirtGoldenCaptureModule, captureArgs);
    expect(captured.msg).toBe(
      `${golden.volume} captured from ${install.domain}; the installed guest is removed`,
    );

    const overlays = await hv.run(libvirtGuestsModule, guestsArgs);
    expect(overlays.msg ?? '').toBe('');
    expect(overlays).toMatchObject({ failed: false, data: { golden: 'exists' } });
    expect(await clusterDomains('--state-running')).toEqual(nodes.map((n) => `${cluster}.${n}`));
    for (const node of nodes)
      expect(await backingOf(`${cluster}.${node}.disk.qcow2`)).toBe(join(hv.poolPath, golden.volume));
    // The re-created first guest boots from its overlay with the specialize answers, not the install ones.
    const domainXml = await virsh('dumpxml', install.domain);
    expect(domainXml).not.toContain(windowsIso.volume);
    const answer = execFileSync(
      'isoinfo',
      ['-J', '-i', join(hv.poolPath, `${cluster}.win-1.config.iso`), '-x', '/Autounattend.xml'],
      { encoding: 'utf8' },
    );
    expect(answer.includes('<settings pass="specialize">')).toBe(true);
    expect(answer.includes('<settings pass="windowsPE">')).toBe(false);
    expect(answer.includes(passwords['win-1']!)).toBe(true);

    // down: everything the state recorded goes; the golden volume and the cached ISO stay.
    const { destroyed, cleaned, leaks } = await g.down();
    expect(destroyed.msg ?? '').toBe('');
    expect(destroyed.failed).toBe(false);
    expect(cleaned.failed).toBe(false);
    expect(leaks.data?.['found'], JSON.stringify(leaks.data)).toEqual([]);
    expect(readdirSync(hv.poolPath).sort()).toEqual([golden.volume, windowsIso.volume].sort());
  });
});
