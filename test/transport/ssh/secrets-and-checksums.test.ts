import { createHash } from 'node:crypto';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { SecretRefError } from '../../../src/errors/index.js';
import { resolveSecretRef } from '../../../src/transport/ssh/index.js';
import { checksumMismatch, remoteChecksum } from '../../../src/transport/ssh/verified-transfer.js';
import { testTempDirSync } from '../../helpers/temp.js';

const dir = testTempDirSync('secret');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('secret references', () => {
  it('reads env and file references', async () => {
    process.env['KMX_TEST_SECRET'] = 's3cret';
    expect((await resolveSecretRef({ env: 'KMX_TEST_SECRET' }, 'password')).toString()).toBe('s3cret');
    writeFileSync(join(dir, 'key'), 'file-secret');
    expect((await resolveSecretRef({ file: join(dir, 'key') }, 'key')).toString()).toBe('file-secret');
  });

  it('names the reference, never the value, when it cannot be resolved', async () => {
    delete process.env['KMX_TEST_MISSING'];
    const missing = resolveSecretRef({ env: 'KMX_TEST_MISSING' }, 'lab-01: becomePassword');
    await expect(missing).rejects.toBeInstanceOf(SecretRefError);
    await expect(missing).rejects.toThrow(
      'lab-01: becomePassword: environment variable KMX_TEST_MISSING is not set',
    );
    const unreadable = resolveSecretRef({ file: join(dir, 'nope') }, 'privateKey');
    await expect(unreadable).rejects.toThrow(`privateKey: cannot read file ${join(dir, 'nope')} (ENOENT)`);
    const error = await unreadable.catch((e: SecretRefError) => e);
    expect((error as SecretRefError).exitCode).toBe(2);
  });
});

describe('transfer checksums', () => {
  const sum = createHash('sha256').update('payload').digest('hex');

  it('reads sha256sum output, including escaped names', () => {
    expect(remoteChecksum(`${sum}  /tmp/file\n`)).toBe(sum);
    expect(remoteChecksum(`\\${sum}  /tmp/new\\nline\n`)).toBe(sum);
    expect(remoteChecksum('sha256sum: /x: No such file or directory')).toBeNull();
  });

  it('reports a mismatch with both hashes and the path', () => {
    expect(checksumMismatch(sum, sum, '/p')).toBeUndefined();
    const other = createHash('sha256').update('other').digest('hex');
    expect(checksumMismatch(sum, other, '/etc/x')).toBe(
      `checksum mismatch for /etc/x: local sha256 ${sum}, remote sha256 ${other}`,
    );
    expect(checksumMismatch(sum, null, '/etc/x')).toContain('cannot read the sha256');
  });
});
