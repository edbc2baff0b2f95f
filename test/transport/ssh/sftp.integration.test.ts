import { createHash, randomBytes } from 'node:crypto';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Lab, startLab } from '../../../scripts/lab/lab.js';
import type { SshTransport } from '../../../src/transport/ssh/index.js';
import { testTempDirSync } from '../../helpers/temp.js';
import { labTransport } from './helpers.js';

let lab: Lab;
let t: SshTransport;
let tampered: SshTransport;
let dir: string;

const sha = (data: Buffer | string) => createHash('sha256').update(data).digest('hex');

beforeAll(async () => {
  lab = await startLab({ count: 2 });
  dir = testTempDirSync('sftp');
  t = labTransport(lab, 'lab-01');
  tampered = labTransport(lab, 'lab-02');
  // lab-02 gets a sha256sum that lies (first on PATH, private to that host): the mismatch path, for real.
  const fake = await tampered.exec({
    command:
      'printf \'#!/bin/sh\\necho 0000000000000000000000000000000000000000000000000000000000000000  "$2"\\n\' > /opt/kubemix-lab/bin/sha256sum && chmod +x /opt/kubemix-lab/bin/sha256sum && sha256sum -- /etc/hostname',
  });
  expect(fake.stdout.startsWith('0000')).toBe(true);
});

afterAll(async () => {
  await t?.close();
  await tampered?.close();
  await lab?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('SFTP put/get with checksum verification', () => {
  it('puts content with a mode, creating parent directories', async () => {
    const result = await t.put({
      remotePath: '/var/lib/kubemix-lab/a/b/c/secret.txt',
      content: 'top secret\n',
      mode: 0o600,
    });
    expect(result).toMatchObject({ failed: false, exitCode: 0, host: 'lab-01' });
    const check = await t.exec({
      command:
        'stat -c %a /var/lib/kubemix-lab/a/b/c/secret.txt; cat /var/lib/kubemix-lab/a/b/c/secret.txt; ls -a /var/lib/kubemix-lab/a/b/c',
    });
    expect(check.stdout).toBe('600\ntop secret\n.\n..\nsecret.txt\n');
  });

  it('puts a multi-MB local file intact and gets it back', async () => {
    const data = randomBytes(5 * 1024 * 1024 + 17);
    writeFileSync(join(dir, 'big.bin'), data);
    const put = await t.put({ remotePath: '/var/lib/kubemix-lab/big.bin', localPath: join(dir, 'big.bin') });
    expect(put.failed, put.stderr).toBe(false);
    const remote = await t.exec({
      command: 'sha256sum /var/lib/kubemix-lab/big.bin; stat -c %a /var/lib/kubemix-lab/big.bin',
    });
    expect(remote.stdout).toBe(`${sha(data)}  /var/lib/kubemix-lab/big.bin\n644\n`);
    const got = await t.get({
      remotePath: '/var/lib/kubemix-lab/big.bin',
      localPath: join(dir, 'back', 'big.bin'),
    });
    expect(got.failed, got.stderr).toBe(false);
    expect(sha(readFileSync(join(dir, 'back', 'big.bin')))).toBe(sha(data));
  });

  it('replaces a file atomically, keeping its mode when none is given', async () => {
    await t.exec({
      command: 'printf old > /var/lib/kubemix-lab/conf && chmod 640 /var/lib/kubemix-lab/conf',
    });
    expect((await t.put({ remotePath: '/var/lib/kubemix-lab/conf', content: 'new' })).failed).toBe(false);
    expect(
      (await t.exec({ command: 'stat -c %a /var/lib/kubemix-lab/conf; cat /var/lib/kubemix-lab/conf' }))
        .stdout,
    ).toBe('640\nnew');
  });

  it('runs transfers in parallel on one connection', async () => {
    const results = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        t.put({ remotePath: `/var/lib/kubemix-lab/par/${i}`, content: `file ${i}` }),
      ),
    );
    expect(results.every((r) => !r.failed)).toBe(true);
    expect((await t.exec({ command: 'cat /var/lib/kubemix-lab/par/11' })).stdout).toBe('file 11');
  });

  it('fails clearly for a missing remote file or an unwritable target', async () => {
    const missing = await t.get({ remotePath: '/var/lib/kubemix-lab/none', localPath: join(dir, 'none') });
    expect(missing.failed).toBe(true);
    expect(missing.stderr).toContain('/var/lib/kubemix-lab/none');
    expect(existsSync(join(dir, 'none'))).toBe(false);
    const blocked = await t.put({ remotePath: '/proc/kmx/x', content: 'x' });
    expect(blocked.failed).toBe(true);
    expect(blocked.stderr).toContain('/proc/kmx');
  });

  it('refuses an upload whose remote checksum does not match, leaving the target untouched', async () => {
    await tampered.exec({ command: 'printf original > /var/lib/kubemix-lab/target' });
    const result = await tampered.put({ remotePath: '/var/lib/kubemix-lab/target', content: 'replacement' });
    expect(result.failed).toBe(true);
    expect(result.stderr).toBe(
      `checksum mismatch for /var/lib/kubemix-lab/target: local sha256 ${sha('replacement')}, remote sha256 ${'0'.repeat(64)}`,
    );
    const after = await tampered.exec({
      command: 'cat /var/lib/kubemix-lab/target; ls -a /var/lib/kubemix-lab',
    });
    expect(after.stdout).toBe('original.\n..\ntarget\n');
  });

  it('removes a downloaded copy whose checksum does not match', async () => {
    const local = join(dir, 'tampered-get');
    const result = await tampered.get({ remotePath: '/etc/hostname', localPath: local });
    expect(result.failed).toBe(true);
    expect(result.stderr).toContain('checksum mismatch for /etc/hostname');
    expect(existsSync(local)).toBe(false);
  });
});
