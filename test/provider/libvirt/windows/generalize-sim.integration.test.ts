import { once } from 'node:events';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWindowsLab, type WindowsLab } from '../../../../fixtures/windows-sim/lab.js';
import {
  hostKeyFiles,
  OPENSSH_DIR,
  registerOpenSshHostKeys,
} from '../../../../fixtures/windows-sim/openssh-host-keys.js';
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
  OPENSSH_ADMIN_AUTHORIZED_KEYS,
} from '../../../../src/provider/libvirt/windows/golden-image.js';

// kubemix's generalize script sent over WinRM (kubemix's own transport, NTLM with message
// encryption) to a simulated Windows host whose sysprep model follows Microsoft Learn
// (fixtures/windows-sim/sysprep.ts, sources there). Real Windows never runs here.

let lab: WindowsLab;
/** win-golden's host keys before it was generalized. */
const keysBefore = new Set<string>();

beforeAll(async () => {
  lab = await startWindowsLab({
    hosts: [
      { name: 'win-golden', windowsVersion: '2022' },
      { name: 'win-refuse', windowsVersion: '2022' },
      { name: 'win-no-openssh', windowsVersion: '2019' },
    ],
  });
  // Before the hooks: a host without OpenSSH Server has no sshd to make keys.
  lab.host('win-no-openssh').services.delete('sshd');
  registerSysprep(lab.simulator);
  registerOpenSshHostKeys(lab.simulator);
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
  it('removes the cached answer files, stops sshd and deletes its host keys, writes the generalize answer file, and sysprep generalizes and powers the host off', async () => {
    const sim = lab.host('win-golden');
    // sshd (running) made rsa, ecdsa and ed25519 keys; an older Win32-OpenSSH also left DSA ones.
    sim.fs.write(`${OPENSSH_DIR}\\ssh_host_dsa_key`, 'old dsa key');
    sim.fs.write(`${OPENSSH_DIR}\\ssh_host_dsa_key.pub`, 'old dsa key.pub');
    expect(hostKeyFiles(sim).size).toBe(8);
    for (const content of hostKeyFiles(sim).values()) keysBefore.add(content);
    // The capturing cluster's key, as the first logon authorized it (not for other clusters' guests).
    sim.fs.write(OPENSSH_ADMIN_AUTHORIZED_KEYS, 'ssh-ed25519 AAAA kubemix cluster key\n');
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
    expect([...hostKeyFiles(sim).keys()]).toEqual([]);
    expect(sim.fs.exists(OPENSSH_ADMIN_AUTHORIZED_KEYS)).toBe(false);
    expect(sim.service('sshd')).toMatchObject({ state: 'stopped', startMode: 'manual' });
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

  it('a boot of the generalized disk leaves sshd off; once a first logon sets it Automatic, it makes new host keys', async () => {
    // The first test left win-golden generalized and off. Booting it is what each overlay's first
    // boot does with the same disk.
    const sim = lab.host('win-golden');
    expect(sim.power).toBe('down');
    expect(sim.service('sshd')?.startMode).toBe('manual');
    sim.boot();
    // A cluster over WinRM: sshd stays off and has no keys.
    expect(sim.service('sshd')?.state).toBe('stopped');
    expect(hostKeyFiles(sim).size).toBe(0);
    // A cluster over SSH: its first logon sets sshd Automatic (first-logon-script.ts); the service
    // start (here at the next boot) makes the keys.
    sim.service('sshd')!.startMode = 'auto';
    sim.boot();
    expect([...hostKeyFiles(sim).keys()].sort()).toEqual(
      ['ecdsa', 'ed25519', 'rsa'].flatMap((t) => [
        `${OPENSSH_DIR}\\ssh_host_${t}_key`,
        `${OPENSSH_DIR}\\ssh_host_${t}_key.pub`,
      ]),
    );
    for (const content of hostKeyFiles(sim).values()) expect(keysBefore.has(content)).toBe(false);
  });

  it('without OpenSSH Server installed, sshd and its keys are left alone and sysprep still runs', async () => {
    const sim = lab.host('win-no-openssh');
    expect(sim.service('sshd')).toBeUndefined();
    expect(sim.fs.exists(OPENSSH_DIR)).toBe(false);
    const down = once(sim, 'power');
    const result = await send('win-no-openssh', generalizeScript());
    expect(result.stderr).toBe('');
    expect(result.failed).toBe(false);
    expect(sim.fs.exists(OPENSSH_DIR)).toBe(false);
    expect(sysprepRuns(sim)).toHaveLength(1);
    expect(await down).toEqual(['down']);
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
