import { execFileSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  powerOffLikeSysprep,
  STAND_IN_GOLDEN,
  STAND_IN_WINDOWS_ISO,
  virshResult,
} from '../../../../fixtures/libvirt/golden.js';
import { virsh } from '../../../../fixtures/libvirt/libvirtd.js';
import type { Module } from '../../../../src/modules/types.js';
import { buildPlan } from '../../../../src/plan/index.js';
import {
  libvirtGoldenCaptureModule,
  libvirtGoldenMarkModule,
  libvirtGuestsModule,
  libvirtRemoveConfigIsoModule,
} from '../../../../src/provider/libvirt/modules/index.js';
import { guestDeviceVars } from '../../../../src/provider/libvirt/node-host.js';
import { validateSpecInput } from '../../../../src/spec/validate.js';
import { evaluateCondition } from '../../../../src/template/render.js';
import { loadVersions } from '../../../../src/versions/versions.js';
import { useGoldenWindowsGuests } from './golden-windows-guests.js';

// A golden-image task resumed after the first Windows guest was marked and sysprep started: on a
// real libvirtd with QEMU under TCG, through kubemix's local transport, module after module as the
// plan's `when` conditions pick them for what the resumed libvirt_guests registers. STAND-INS,
// not Windows (as in golden-flow.integration.test.ts): the "Windows ISO" is a blank file, and
// "sysprep's power-off" is the guest's own ACPI power-off written through QEMU's monitor (libvirt
// reports `shut off (shutdown)`).

const windowsIso = STAND_IN_WINDOWS_ISO;
const golden = STAND_IN_GOLDEN;
const nodes = ['win-1', 'win-2'];
const g = useGoldenWindowsGuests({ stem: 'kmx-gres', nodes, bridge: 'kmxr' });

/** The golden-image task's steps as `up` plans them (their modules and `when` conditions). */
function plannedSteps() {
  const spec = validateSpecInput(
    {
      name: 'lab',
      provider: {
        type: 'libvirt',
        images: { windows: { source: 'https://isos.example/ws2022.iso', sha256: 'a'.repeat(64) } },
        windows: { goldenImage: true },
      },
      nodes: { controlPlane: { count: 1 }, workers: [{ name: 'win', os: 'windows', count: 2 }] },
    },
    { file: 'spec.yaml' },
  );
  const plan = buildPlan({ spec, versions: loadVersions(), clusterDir: '/clusters/lab' });
  return plan.tasks.find((t) => t.name === 'golden-image')!.steps;
}

/** The modules of the golden-image task that run after its first step registered `registered`. */
const modulesToRun = (registered: Record<string, unknown>) =>
  plannedSteps()
    .slice(1)
    .filter((s) => {
      const when = s.keywords?.['when'];
      return when === undefined || evaluateCondition(when, { outputs: { libvirt_guests: registered } });
    })
    .map((s) => s.module);

const runHere = <A>(module: Module<A>, args: Record<string, unknown>) => g.hv.run(module, args);
const lv = virshResult;
const domstate = async (domain: string) => (await lv('domstate', '--reason', domain)).stdout.trim();

/** Waits for the domain to be shut off, one lifecycle event (or 5 s) at a time, for at most 2 minutes. */
async function shutOff(domain: string): Promise<string> {
  for (let i = 0; i < 24; i++) {
    const state = await domstate(domain);
    if (state.startsWith('shut off')) return state;
    await lv('event', '--domain', domain, '--event', 'lifecycle', '--timeout', '5');
  }
  return domstate(domain);
}

describe('golden image task resumed after sysprep started (real libvirtd + QEMU TCG; stand-ins, not Windows)', () => {
  it('keeps the marked first guest as it is, running or shut off, and captures it without the install watch', {
    timeout: 600_000,
  }, async () => {
    const { hv, cluster, install, guestsArgs, captureArgs } = g;
    const { pool } = hv.cluster;
    // create-hosts, then the first run of the golden-image task up to the mark.
    const created = await runHere(libvirtGuestsModule, guestsArgs);
    expect(created).toMatchObject({ failed: false, data: { golden: 'capture' } });
    expect(modulesToRun({ golden: 'capture' })).toContain('libvirt_windows_install');
    const devices = guestDeviceVars(install);
    const ejected = await runHere(libvirtRemoveConfigIsoModule, {
      uri: hv.common.uri,
      pool,
      domain: install.domain,
      volume: devices.libvirt_config_volume,
      target: devices.libvirt_config_target,
    });
    expect(ejected.failed).toBe(false);
    const marked = await runHere(libvirtGoldenMarkModule, { uri: hv.common.uri, domain: install.domain });
    expect(marked.msg).toBe(`${install.domain} is marked as being generalized`);

    // The run stops while "sysprep" runs; resumed, the task's first step leaves the guest alone.
    const whileRunning = await runHere(libvirtGuestsModule, guestsArgs);
    expect(whileRunning).toMatchObject({ failed: false, changed: false, data: { golden: 'generalizing' } });
    expect(await domstate(install.domain)).toMatch(/^running/);

    // "sysprep" powers the guest off; the run is resumed again.
    await powerOffLikeSysprep(install.domain);
    expect(await shutOff(install.domain)).toBe('shut off (shutdown)');
    const resumed = await runHere(libvirtGuestsModule, guestsArgs);
    expect(resumed).toMatchObject({ failed: false, changed: false, data: { golden: 'generalizing' } });
    // Not started again: booting it would specialize the generalized Windows.
    expect(await domstate(install.domain)).toBe('shut off (shutdown)');

    // What the task runs next, as its `when` conditions decide for what was registered.
    const next = modulesToRun(resumed.data ?? {});
    // lineinfile forgets the install's host key on the kubemix machine (no hypervisor part: not run here).
    expect(next).toEqual(['lineinfile', 'libvirt_golden_capture', 'libvirt_guests']);
    const captured = await runHere(libvirtGoldenCaptureModule, captureArgs);
    expect(captured.msg).toBe(
      `${golden.volume} captured from ${install.domain}; the installed guest is removed`,
    );
    const overlays = await runHere(libvirtGuestsModule, guestsArgs);
    expect(overlays).toMatchObject({ failed: false, data: { golden: 'exists' } });
    // The re-made first guest gets the specialize answers: the install's config ISO, deleted
    // before the mark, was not made again by the resumed runs (it has the overlay's name).
    const answer = execFileSync(
      'isoinfo',
      ['-J', '-i', join(hv.poolPath, `${cluster}.win-1.config.iso`), '-x', '/Autounattend.xml'],
      { encoding: 'utf8' },
    );
    expect(answer.includes('<settings pass="specialize">')).toBe(true);
    expect(answer.includes('<settings pass="windowsPE">')).toBe(false);
    // The re-made first guest is an overlay without the mark (a new domain).
    expect(
      (await lv('metadata', install.domain, 'https://kubemix.dev/libvirt/golden/1', '--config')).stderr,
    ).toContain('metadata not found');

    // down: the mark went with the domain; nothing is left but the golden volume and the ISO.
    const { destroyed, cleaned, leaks } = await g.down();
    expect(destroyed.failed).toBe(false);
    expect(cleaned.failed).toBe(false);
    expect(leaks.data?.['found'], JSON.stringify(leaks.data)).toEqual([]);
    expect(readdirSync(hv.poolPath).sort()).toEqual([golden.volume, windowsIso.volume].sort());
  });
  it('remakes as an overlay a marked first guest that a capture published the golden volume from but did not remove', {
    timeout: 600_000,
  }, async () => {
    const { hv, cluster, network, install, guestsArgs } = g;
    const { pool } = hv.cluster;
    // Without the golden volume, create-hosts makes the first guest as installed; it is marked.
    await lv('vol-delete', '--pool', pool, golden.volume);
    // The previous test's `down` removed the network and the file directory.
    if ((await lv('net-info', network)).exitCode !== 0) await g.startNetwork();
    await g.makeFilesDir();
    const created = await runHere(libvirtGuestsModule, guestsArgs);
    expect(created).toMatchObject({ failed: false, data: { golden: 'capture' } });
    const marked = await runHere(libvirtGoldenMarkModule, { uri: hv.common.uri, domain: install.domain });
    expect(marked.failed).toBe(false);
    // What a capture leaves when its removal of the guest fails: the volume published (a STAND-IN
    // qcow2 here), the installed guest still defined, running, marked.
    execFileSync('qemu-img', ['create', '-q', '-f', 'qcow2', join(hv.poolPath, golden.volume), '1G']);
    await virsh('pool-refresh', pool);

    const remade = await runHere(libvirtGuestsModule, guestsArgs);
    expect(remade).toMatchObject({ failed: false, changed: true, data: { golden: 'exists' } });
    for (const node of nodes) {
      expect(await domstate(`${cluster}.${node}`)).toMatch(/^running/);
      const disk = await virsh('vol-dumpxml', '--pool', pool, `${cluster}.${node}.disk.qcow2`);
      expect(disk).toContain(`<path>${join(hv.poolPath, golden.volume)}</path>`);
    }
    // A new domain: without the mark.
    expect(
      (await lv('metadata', install.domain, 'https://kubemix.dev/libvirt/golden/1', '--config')).stderr,
    ).toContain('metadata not found');

    const { destroyed, cleaned, leaks } = await g.down();
    expect(destroyed.failed).toBe(false);
    expect(cleaned.failed).toBe(false);
    expect(leaks.data?.['found'], JSON.stringify(leaks.data)).toEqual([]);
  });
});
