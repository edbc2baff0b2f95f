import { once } from 'node:events';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWindowsLab, type WindowsLab } from '../../../../fixtures/windows-sim/lab.js';
import {
  registerSysprep,
  SETUP_STATE_FILE,
  SYSPREP_LOG_DIR,
  sysprepRuns,
} from '../../../../fixtures/windows-sim/sysprep.js';
import { createTransport } from '../../../../src/executor/create-transport.js';
import { FIRST_LOGON_DONE_MARKER } from '../../../../src/provider/libvirt/windows/first-logon-script.js';
import {
  CACHED_ANSWER_FILES,
  GENERALIZE_UNATTEND_PATH,
  generalizeScript,
  generalizeUnattendXml,
} from '../../../../src/provider/libvirt/windows/golden-image.js';

// kubemix's generalize script sent over WinRM (kubemix's own transport, NTLM with message
// encryption) to a simulated Windows host whose sysprep model follows Microsoft Learn
// (fixtures/windows-sim/sysprep.ts, sources there). Real Windows never runs here.

let lab: WindowsLab;

beforeAll(async () => {
  lab = await startWindowsLab({
    hosts: [
      { name: 'win-golden', windowsVersion: '2022' },
      { name: 'win-refuse', windowsVersion: '2022' },
    ],
  });
  registerSysprep(lab.simulator);
});

afterAll(async () => {
  await lab?.stop();
});

async function send(name: string, script: string) {
  const host = lab.hosts.find((h) => h.name === name)!;
  const transport = createTransport(host);
  try {
    await transport.connect();
    return await transport.exec({ command: script });
  } finally {
    await transport.close();
  }
}

describe('generalize script on the simulated Windows host', () => {
  it('removes the cached answer files, writes the generalize answer file, and sysprep generalizes and powers the host off', async () => {
    const sim = lab.host('win-golden');
    for (const cached of CACHED_ANSWER_FILES) {
      sim.fs.mkdir(sim.fs.parent(cached));
      sim.fs.write(cached, '<unattend/>');
    }
    sim.fs.mkdir(sim.fs.parent(FIRST_LOGON_DONE_MARKER));
    sim.fs.write(FIRST_LOGON_DONE_MARKER, '');
    const down = once(sim, 'power');

    const result = await send('win-golden', generalizeScript());
    expect(result.stderr).toBe('');
    expect(result.failed).toBe(false);
    for (const cached of CACHED_ANSWER_FILES) expect(sim.fs.exists(cached), cached).toBe(false);
    expect(sim.fs.exists(FIRST_LOGON_DONE_MARKER)).toBe(false);
    expect(sim.fs.read(GENERALIZE_UNATTEND_PATH)?.toString('utf8')).toBe(generalizeUnattendXml());
    expect(sysprepRuns(sim)).toEqual([
      { args: ['/generalize', '/oobe', '/shutdown', '/quiet', `/unattend:${GENERALIZE_UNATTEND_PATH}`] },
    ]);
    expect(sim.fs.read(SETUP_STATE_FILE)?.toString('utf8')).toContain(
      'ImageState=IMAGE_STATE_GENERALIZE_RESEAL_TO_OOBE',
    );
    expect(await down).toEqual(['down']);
    expect(sim.power).toBe('down');
    expect(sim.shutdownPending).toBe(false);
  });

  it('a command line sysprep refuses leaves the host up and specialized, with the error in setuperr.log', async () => {
    const sim = lab.host('win-refuse');
    const bad = generalizeScript().replace("'/quiet'", "'/restart'");
    const result = await send('win-refuse', bad);
    // Start-Process does not wait: the script succeeds although sysprep refused.
    expect(result.failed).toBe(false);
    expect(sysprepRuns(sim)).toMatchObject([{ refused: 'Invalid command line option /restart' }]);
    expect(sim.fs.read(`${SYSPREP_LOG_DIR}\\setuperr.log`)?.toString('utf8')).toContain('/restart');
    expect(sim.fs.exists(SETUP_STATE_FILE)).toBe(false);
    expect(sim.power).toBe('up');
    expect(sim.shutdownPending).toBe(false);
  });

  it('a statement the model does not know is not simulated', async () => {
    const result = await send('win-refuse', `${generalizeScript()}Restart-Computer -Force\r\n`);
    expect(result.failed).toBe(true);
    expect(result.stderr).toContain('not simulated: Restart-Computer -Force');
  });
});
