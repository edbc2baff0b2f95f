import { createHash, randomBytes } from 'node:crypto';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Lab, startLab } from '../../../scripts/lab/lab.js';
import { createTransport } from '../../../src/executor/create-transport.js';
import { loadInventory, parsePlaybook, runPlaybook } from '../../../src/playbook/index.js';
import type { SshTransport } from '../../../src/transport/ssh/index.js';
import { testTempDirSync } from '../../helpers/temp.js';
import { labTransport } from './helpers.js';

// Hosts whose sshd has no `Subsystem sftp` line (lab-02, lab-03), and one that has no scp either
// (lab-03): transfers fall back the way Ansible's smart transfer does, to scp, then to the shell.
let lab: Lab;
let dir: string;
const transports: SshTransport[] = [];

const sha = (data: Buffer | string) => createHash('sha256').update(data).digest('hex');
const SFTP_REFUSED = 'subsystem request for sftp by user root failed, subsystem not found';
/** Private to each lab host and first on its PATH. */
const HOST_BIN = '/opt/kubemix-lab/bin';

function transport(name: string): SshTransport {
  const t = labTransport(lab, name);
  transports.push(t);
  return t;
}

/** How often this host's sshd refused the sftp subsystem (it logs each refusal at INFO). */
async function sftpRefusals(name: string): Promise<number> {
  const log = await readFile(join(lab.dir, 'hosts', name, 'sshd.log'), 'utf8');
  return log.split('\n').filter((line) => line.includes(SFTP_REFUSED)).length;
}

beforeAll(async () => {
  lab = await startLab({ count: 3, noSftp: ['lab-02', 'lab-03'], noScp: ['lab-03'] });
  dir = testTempDirSync('transfer-fallback');
});

afterAll(async () => {
  for (const t of transports) await t.close();
  await lab?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('the lab hosts are what they claim', () => {
  it('lab-02 and lab-03 refuse SFTP, lab-03 has no scp, lab-01 has both', async () => {
    const plain = await transport('lab-01').put({ remotePath: '/var/lib/kubemix-lab/x', content: 'x' });
    expect(plain.failed, plain.stderr).toBe(false);
    expect(await sftpRefusals('lab-01')).toBe(0);
    const which = async (name: string) =>
      (await transport(name).exec({ command: 'command -v scp || echo none' })).stdout.trim();
    expect(await which('lab-02')).toBe('/usr/bin/scp');
    expect(await which('lab-03')).toBe('none');
  });
});

describe.each([
  { host: 'lab-02', method: 'scp' },
  { host: 'lab-03', method: 'the shell (pipe)' },
])('put/get on $host, which has no SFTP: through $method, checksum-verified', ({ host }) => {
  let t: SshTransport;
  beforeAll(() => {
    t = transport(host);
  });

  it('puts content with a mode, creating parent directories', async () => {
    const result = await t.put({
      remotePath: '/var/lib/kubemix-lab/a/b/secret.txt',
      content: 'top secret\n',
      mode: 0o600,
    });
    expect(result, result.stderr).toMatchObject({ failed: false, exitCode: 0, host });
    const check = await t.exec({
      command:
        'stat -c %a /var/lib/kubemix-lab/a/b/secret.txt; cat /var/lib/kubemix-lab/a/b/secret.txt; ls -a /var/lib/kubemix-lab/a/b',
    });
    expect(check.stdout).toBe('600\ntop secret\n.\n..\nsecret.txt\n');
  });

  it('puts a multi-MB binary file intact, gets it back, and handles an empty file', async () => {
    const data = randomBytes(2 * 1024 * 1024 + 4099);
    const local = join(dir, `${host}-big.bin`);
    writeFileSync(local, data);
    const put = await t.put({ remotePath: '/var/lib/kubemix-lab/big.bin', localPath: local });
    expect(put.failed, put.stderr).toBe(false);
    const remote = await t.exec({
      command: 'sha256sum /var/lib/kubemix-lab/big.bin; stat -c %a /var/lib/kubemix-lab/big.bin',
    });
    expect(remote.stdout).toBe(`${sha(data)}  /var/lib/kubemix-lab/big.bin\n644\n`);
    const back = join(dir, `${host}-back`, 'big.bin');
    const got = await t.get({ remotePath: '/var/lib/kubemix-lab/big.bin', localPath: back });
    expect(got.failed, got.stderr).toBe(false);
    expect(sha(readFileSync(back))).toBe(sha(data));

    expect((await t.put({ remotePath: '/var/lib/kubemix-lab/empty', content: '' })).failed).toBe(false);
    expect((await t.exec({ command: 'wc -c < /var/lib/kubemix-lab/empty' })).stdout).toBe('0\n');
    const emptyBack = join(dir, `${host}-empty`);
    expect((await t.get({ remotePath: '/var/lib/kubemix-lab/empty', localPath: emptyBack })).failed).toBe(
      false,
    );
    expect(readFileSync(emptyBack).length).toBe(0);
  });

  it('replaces a file, keeping its mode when none is given', async () => {
    await t.exec({
      command: 'printf old > /var/lib/kubemix-lab/conf && chmod 640 /var/lib/kubemix-lab/conf',
    });
    expect((await t.put({ remotePath: '/var/lib/kubemix-lab/conf', content: 'new' })).failed).toBe(false);
    expect(
      (await t.exec({ command: 'stat -c %a /var/lib/kubemix-lab/conf; cat /var/lib/kubemix-lab/conf' }))
        .stdout,
    ).toBe('640\nnew');
  });

  it('fails clearly for a missing remote file or an unwritable target, leaving nothing behind', async () => {
    const local = join(dir, `${host}-none`);
    const missing = await t.get({ remotePath: '/var/lib/kubemix-lab/none', localPath: local });
    expect(missing.failed).toBe(true);
    expect(missing.stderr).toMatch(/^download of \/var\/lib\/kubemix-lab\/none failed: .*No such file/);
    expect(existsSync(local)).toBe(false);
    const blocked = await t.put({ remotePath: '/proc/kmx/x', content: 'x' });
    expect(blocked.failed).toBe(true);
    expect(blocked.stderr).toContain('/proc/kmx');
  });

  it('refuses an upload or a download whose checksum does not match', async () => {
    // A sha256sum that lies, first on this host's PATH: the mismatch path, for real.
    await t.exec({
      command: `printf 'original' > /var/lib/kubemix-lab/target && printf '#!/bin/sh\\necho ${'0'.repeat(64)}  "$2"\\n' > ${HOST_BIN}/sha256sum && chmod +x ${HOST_BIN}/sha256sum`,
    });
    try {
      const put = await t.put({ remotePath: '/var/lib/kubemix-lab/target', content: 'replacement' });
      expect(put.stderr).toBe(
        `checksum mismatch for /var/lib/kubemix-lab/target: local sha256 ${sha('replacement')}, remote sha256 ${'0'.repeat(64)}`,
      );
      const after = await t.exec({
        command: 'cat /var/lib/kubemix-lab/target; ls -a /var/lib/kubemix-lab | grep -c kmx-',
      });
      expect(after.stdout).toBe('original0\n');
      const local = join(dir, `${host}-tampered`);
      const get = await t.get({ remotePath: '/var/lib/kubemix-lab/target', localPath: local });
      expect(get.stderr).toContain('checksum mismatch for /var/lib/kubemix-lab/target');
      expect(existsSync(local)).toBe(false);
    } finally {
      await t.exec({ command: `rm -f ${HOST_BIN}/sha256sum` });
    }
  });
});

describe('the method a connection offers is remembered', () => {
  it('asks for SFTP once per connection, and again after a reconnect', async () => {
    const t = transport('lab-02');
    await t.close();
    const before = await sftpRefusals('lab-02');
    for (let i = 0; i < 4; i++) {
      const put = await t.put({ remotePath: `/var/lib/kubemix-lab/memo/${i}`, content: `${i}` });
      expect(put.failed, put.stderr).toBe(false);
    }
    expect(await sftpRefusals('lab-02')).toBe(before + 1);
    await t.close();
    expect(
      (await t.get({ remotePath: '/var/lib/kubemix-lab/memo/3', localPath: join(dir, 'memo') })).failed,
    ).toBe(false);
    expect(await sftpRefusals('lab-02')).toBe(before + 2);
  });

  it('tries scp once per connection on a host without it', async () => {
    const t = transport('lab-03');
    await t.close();
    const first = await t.put({ remotePath: '/var/lib/kubemix-lab/memo/0', content: '0' });
    expect(first.failed, first.stderr).toBe(false);
    // From now on, an `scp` on this host's PATH records every call (and still finds no scp).
    const calls = '/var/lib/kubemix-lab/scp-calls';
    await t.exec({
      command: `printf '#!/bin/sh\\necho "$*" >> ${calls}\\nexec /usr/bin/scp "$@"\\n' > ${HOST_BIN}/scp && chmod +x ${HOST_BIN}/scp && : > ${calls}`,
    });
    try {
      for (let i = 1; i < 4; i++) {
        const put = await t.put({ remotePath: `/var/lib/kubemix-lab/memo/${i}`, content: `${i}` });
        expect(put.failed, put.stderr).toBe(false);
      }
      expect((await t.exec({ command: `wc -l < ${calls}` })).stdout).toBe('0\n');
      // A new connection asks again (the host may have changed), and still ends up on the shell.
      await t.close();
      expect((await t.put({ remotePath: '/var/lib/kubemix-lab/memo/4', content: '4' })).failed).toBe(false);
      expect((await t.exec({ command: `cat ${calls}` })).stdout).toMatch(
        /^-t -- \/var\/lib\/kubemix-lab\/memo\/\.4\.kmx-[0-9a-f]+\.tmp\n$/,
      );
    } finally {
      await t.exec({ command: `rm -f ${HOST_BIN}/scp` });
    }
  });
});

describe('copy, template and fetch in a playbook on hosts without SFTP', () => {
  it('places and fetches files on both (scp on lab-02, the shell on lab-03)', async () => {
    const fetched = join(dir, 'fetched');
    // Beside the fixture playbooks, so `template: src` finds fixtures/playbooks/templates.
    const file = fileURLToPath(new URL('../../../fixtures/playbooks/inline.yml', import.meta.url));
    const result = await runPlaybook({
      playbook: parsePlaybook(
        [
          '- hosts: lab-02:lab-03',
          '  vars:',
          '    app_name: demo',
          '    app_settings: { colour: blue, replicas: 3 }',
          '  tasks:',
          '    - copy:',
          '        content: "hello {{ inventory_hostname }}\\n"',
          '        dest: /var/lib/kubemix-lab/play/hello.txt',
          '        mode: "0600"',
          '    - template:',
          '        src: app.conf.j2',
          '        dest: /var/lib/kubemix-lab/play/app.conf',
          '    - fetch:',
          '        src: /var/lib/kubemix-lab/play/app.conf',
          `        dest: ${fetched}`,
          '',
        ].join('\n'),
        file,
      ),
      inventory: await loadInventory(lab.inventoryPath),
      transports: createTransport,
    });
    expect(result.records.filter((r) => r.status === 'failed')).toEqual([]);
    expect(result.exitCode).toBe(0);
    for (const host of ['lab-02', 'lab-03']) {
      const local = readFileSync(join(fetched, host, 'var/lib/kubemix-lab/play/app.conf'), 'utf8');
      expect(local).toBe(`# demo on ${host}\ncolour=blue\nreplicas=3\nrole=web\n`);
      const remote = await transport(host).exec({
        command: 'stat -c %a /var/lib/kubemix-lab/play/hello.txt; cat /var/lib/kubemix-lab/play/hello.txt',
      });
      expect(remote.stdout).toBe(`600\nhello ${host}\n`);
    }
  });
});
