import { once } from 'node:events';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWindowsLab, type WindowsLab } from '../../../../fixtures/windows-sim/lab.js';
import { hostKeyFiles, registerOpenSshHostKeys } from '../../../../fixtures/windows-sim/openssh-host-keys.js';
import { registerSysprep, SETUP_STATE_FILE, sysprepRuns } from '../../../../fixtures/windows-sim/sysprep.js';
import { createTransport } from '../../../../src/executor/create-transport.js';
import { runModule } from '../../../../src/executor/run-module.js';
import type { Module } from '../../../../src/modules/types.js';
import { windowsGeneralizeModule } from '../../../../src/provider/libvirt/modules/index.js';
import { GENERALIZE_UNATTEND_PATH } from '../../../../src/provider/libvirt/windows/golden-image.js';

// The windows_generalize module as `up` runs it: through runModule over kubemix's WinRM transport
// (NTLM, message encryption) to the Windows simulator, whose sysprep model follows Microsoft
// Learn (fixtures/windows-sim/sysprep.ts). Real Windows never runs here.

let lab: WindowsLab;

beforeAll(async () => {
  lab = await startWindowsLab({ hosts: [{ name: 'win-first', windowsVersion: '2022' }] });
  registerSysprep(lab.simulator);
  registerOpenSshHostKeys(lab.simulator);
});

afterAll(async () => {
  await lab?.stop();
});

describe('windows_generalize on the simulated Windows host', () => {
  it('deletes the OpenSSH host keys and starts sysprep with the generalize answer file; the host generalizes and powers off', async () => {
    const host = lab.hosts.find((h) => h.name === 'win-first')!;
    const sim = lab.host('win-first');
    expect(hostKeyFiles(sim).size).toBe(6);
    const transport = createTransport(host);
    const off = once(sim, 'power');
    try {
      await transport.connect();
      const outcome = await runModule({
        module: windowsGeneralizeModule as Module<unknown>,
        args: {},
        context: { host, os: 'windows', vars: {}, checkMode: false },
        transport,
      });
      expect(outcome).toMatchObject({ changed: true, failed: false });
    } finally {
      await transport.close();
    }
    expect([...hostKeyFiles(sim).keys()]).toEqual([]);
    expect(sysprepRuns(sim)).toEqual([
      { args: ['/generalize', '/oobe', '/shutdown', '/quiet', `/unattend:${GENERALIZE_UNATTEND_PATH}`] },
    ]);
    expect(sim.fs.read(SETUP_STATE_FILE)?.toString('utf8')).toContain(
      'ImageState=IMAGE_STATE_GENERALIZE_RESEAL_TO_OOBE',
    );
    expect(await off).toEqual(['down']);
  });
});
