import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SecretRefError } from '../../../src/errors/index.js';
import { resolveOptions, WinrmConfigError } from '../../../src/transport/winrm/options.js';
import { testTempDir } from '../../helpers/temp.js';

const base = { host: 'win1', address: '10.0.0.5', user: 'Administrator', password: 'pw' };

describe('WinRM options', () => {
  it('defaults to NTLM over http 5985 with 153600-byte envelopes and PT20S', async () => {
    const o = await resolveOptions(base);
    expect(o).toMatchObject({
      scheme: 'http',
      port: 5985,
      auth: 'ntlm',
      maxEnvelopeSize: 153_600,
      operationTimeoutSec: 20,
    });
    expect(o.url).toBe('http://10.0.0.5:5985/wsman');
  });

  it('Basic defaults to https 5986; IPv6 addresses are bracketed', async () => {
    const o = await resolveOptions({ ...base, address: 'fd00::5', auth: 'basic' });
    expect(o.url).toBe('https://[fd00::5]:5986/wsman');
  });

  it('refuses Basic over plain http unless allowed, naming the fix', async () => {
    const error = await resolveOptions({ ...base, auth: 'basic', scheme: 'http' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WinrmConfigError);
    expect((error as WinrmConfigError).exitCode).toBe(2);
    expect((error as Error).message).toMatch(
      /^win1: winrm: auth 'basic' over plain http .*allowBasicOverHttp: true/,
    );
    await expect(
      resolveOptions({ ...base, auth: 'basic', scheme: 'http', allowBasicOverHttp: true }),
    ).resolves.toBeTruthy();
  });

  it('checks the fingerprint format', async () => {
    await expect(resolveOptions({ ...base, scheme: 'https', tls: { fingerprint: 'abc' } })).rejects.toThrow(
      /tls\.fingerprint must be a SHA-256 fingerprint/,
    );
    const colons = Array.from({ length: 32 }, () => 'AB').join(':');
    await expect(
      resolveOptions({ ...base, scheme: 'https', tls: { fingerprint: colons } }),
    ).resolves.toBeTruthy();
  });

  it('resolves password references from env and file, with clear errors', async () => {
    process.env.KUBEMIX_TEST_PW = 'from-env';
    try {
      expect((await resolveOptions({ ...base, password: { env: 'KUBEMIX_TEST_PW' } })).password).toBe(
        'from-env',
      );
    } finally {
      delete process.env.KUBEMIX_TEST_PW;
    }
    const error = await resolveOptions({ ...base, password: { env: 'KUBEMIX_TEST_PW' } }).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(SecretRefError);
    expect((error as Error).message).toBe(
      'win1: winrm password: environment variable KUBEMIX_TEST_PW is not set',
    );
    const dir = await testTempDir('pw');
    try {
      await writeFile(join(dir, 'pw'), 'from-file\n');
      expect((await resolveOptions({ ...base, password: { file: join(dir, 'pw') } })).password).toBe(
        'from-file',
      );
      await expect(resolveOptions({ ...base, password: { file: join(dir, 'missing') } })).rejects.toThrow(
        /cannot read .*missing: ENOENT/,
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
