import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testTempDir } from '../../helpers/temp.js';
import { PASSWORD, startTestServer, type TestServer, USER } from './helpers.js';

// Fidelity proof: an independent WinRM client (Debian's python3-winrm 0.3 with
// python3-requests-ntlm) against our test server. /usr/bin/python3 explicitly: a pyenv python
// may come first on PATH without the Debian packages.
const PYTHON = '/usr/bin/python3';
const SCRIPT = fileURLToPath(new URL('./pywinrm-client.py', import.meta.url));

// python3-ntlm-auth computes MD4 through hashlib, i.e. OpenSSL 3, which keeps MD4 in its
// legacy provider; this config loads it for the pywinrm child process only.
const OPENSSL_LEGACY_CONF = `openssl_conf = openssl_init
[openssl_init]
providers = provider_sect
[provider_sect]
default = default_sect
legacy = legacy_sect
[default_sect]
activate = 1
[legacy_sect]
activate = 1
`;

let confDir: string;

async function pywinrm(mode: string, url: string, password = PASSWORD): Promise<Record<string, unknown>> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) {
    // pywinrm 0.3 lets REQUESTS_CA_BUNDLE / CURL_CA_BUNDLE override server_cert_validation='ignore',
    // and proxies must never see loopback traffic.
    if (
      v !== undefined &&
      !/^(REQUESTS_CA_BUNDLE|CURL_CA_BUNDLE|https?_proxy|all_proxy|PYTHONPATH|PYTHONHOME)$/i.test(k)
    )
      env[k] = v;
  }
  env.OPENSSL_CONF = join(confDir, 'openssl-legacy.cnf');
  env.NO_PROXY = '127.0.0.1,localhost';
  const result = await execa(PYTHON, [SCRIPT, mode, url, USER, password], {
    env,
    extendEnv: false,
    reject: false,
    timeout: 60_000,
  });
  if (result.exitCode !== 0) {
    throw new Error(
      `pywinrm ${mode} failed (exit ${result.exitCode}); needs apt packages python3-winrm python3-requests-ntlm:\n${result.stderr}`,
    );
  }
  return JSON.parse(result.stdout) as Record<string, unknown>;
}

beforeAll(async () => {
  confDir = await testTempDir('pywinrm');
  await writeFile(join(confDir, 'openssl-legacy.cnf'), OPENSSL_LEGACY_CONF);
});
afterAll(async () => {
  if (confDir) await rm(confDir, { recursive: true, force: true });
});

function expectCommonResults(out: Record<string, unknown>): void {
  expect(out.ipconfig).toEqual([expect.stringContaining('Windows IP Configuration'), '', 0]);
  expect(out.cmd_exit).toEqual(['hello\r\n', '', 3]);
  expect(out.unknown).toEqual(['', expect.stringContaining("'nosuchcommand' is not recognized"), 9009]);
  expect(out.ps_unicode).toEqual(['Grüße, 東京\r\n', '', 0]);
  expect(out.ps_exit).toEqual(['', '', 7]);
  expect(out.ps_large).toEqual([300_000, 0]);
}

describe('pywinrm against the test server', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer();
  });
  afterAll(async () => {
    await t?.server.stop();
  });

  it('NTLM with message encryption over http: stdout, stderr and exit codes', async () => {
    const out = await pywinrm('ntlm', t.server.url);
    expectCommonResults(out);
    // Every SOAP request was sealed: the server answers clear-text SOAP on an NTLM session with 400.
    expect(t.server.stats.requests['ntlm-authenticate']).toBeGreaterThanOrEqual(1);
    expect(t.server.stats.requests.Create).toBeGreaterThanOrEqual(5);
  });

  it('re-issues Receive after encrypted w:TimedOut faults (operation timeout 1 s, output after 2.5 s)', async () => {
    const slow = await startTestServer({ delayOutputMs: 2500 });
    try {
      const out = await pywinrm('ntlm-timeout', slow.server.url);
      expect(out.late).toEqual(['late\r\n', '', 4]);
      expect(slow.server.stats.requests.Receive).toBeGreaterThanOrEqual(2);
    } finally {
      await slow.server.stop();
    }
  });

  it('a wrong password is rejected', async () => {
    const out = await pywinrm('ntlm-badpass', t.server.url, 'wrong-password');
    expect(out.error).toMatch(/InvalidCredentialsError: the specified credentials were rejected/);
  });
});

describe('pywinrm, Basic over https', () => {
  it('runs commands with the self-signed certificate not validated', async () => {
    const t = await startTestServer({ https: true });
    try {
      expect(t.server.url).toMatch(/^https:/);
      expectCommonResults(await pywinrm('basic', t.server.url));
    } finally {
      await t.server.stop();
    }
  });
});
