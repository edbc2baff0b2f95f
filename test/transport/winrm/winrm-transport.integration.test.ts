import { createHash, randomBytes } from 'node:crypto';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConnectionError } from '../../../src/errors/index.js';
import { MAX_COMMAND_LINE } from '../../../src/transport/powershell/powershell.js';
import { MAX_ATTEMPTS } from '../../../src/transport/winrm/lost-answers.js';
import { WinrmConfigError } from '../../../src/transport/winrm/options.js';
import type { WinrmTransport } from '../../../src/transport/winrm/winrm-transport.js';
import { testTempDir } from '../../helpers/temp.js';
import { PASSWORD, startTestServer, type TestServer, transportFor } from './helpers.js';

const sha256 = (data: Buffer) => createHash('sha256').update(data).digest('hex');

describe('WinrmTransport, NTLM with message encryption over http', () => {
  let t: TestServer;
  let transport: WinrmTransport;
  let dir: string;
  beforeAll(async () => {
    t = await startTestServer();
    transport = transportFor(t.server);
    await transport.connect();
    dir = await testTempDir('winrm');
  });
  afterAll(async () => {
    await transport?.close();
    await t?.server.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('runs a PowerShell command: stdout, exit code 0, one result shape', async () => {
    const result = await transport.exec({ command: "Write-Output 'hello'" });
    expect(result).toMatchObject({
      exitCode: 0,
      stdout: 'hello\r\n',
      stderr: '',
      failed: false,
      timedOut: false,
      host: 'win1',
    });
    expect(result.command).toBe("Write-Output 'hello'");
  });

  it('sealed every request: the server refused nothing and saw one NTLM handshake', async () => {
    expect(t.server.stats.requests['ntlm-authenticate']).toBe(1);
    expect(t.server.stats.connections).toBe(1);
  });

  it('passes exit codes through', async () => {
    for (const code of [0, 1, 3, 255]) {
      const result = await transport.exec({ command: `exit ${code}` });
      expect(result.exitCode).toBe(code);
      expect(result.failed).toBe(code !== 0);
    }
  });

  it('keeps stdout and stderr apart; a terminating error stops the script with exit 1', async () => {
    const result = await transport.exec({
      command: "Write-Output 'before'\nWrite-Error 'it broke'\nWrite-Output 'never printed'",
    });
    expect(result.exitCode).toBe(1);
    expect(result.stdout).toBe('before\r\n');
    expect(result.stderr.trim()).toBe('it broke');
  });

  it('decodes CLIXML on stderr into plain text', async () => {
    const result = await transport.exec({
      command: "Write-Error 'soft <warning> & more' -ErrorAction Continue\nWrite-Output 'after'",
    });
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toBe('after\r\n');
    expect(result.stderr).toBe('soft <warning> & more\n');
  });

  it('carries non-ASCII text both ways (UTF-8, code page 65001)', async () => {
    const result = await transport.exec({ command: "Write-Output 'Grüße, 東京 🚀'" });
    expect(result.stdout).toBe('Grüße, 東京 🚀\r\n');
    const echoed = await transport.exec({
      command: '[Console]::Out.Write([Console]::In.ReadToEnd())',
      stdin: 'Grüße, 東京',
    });
    expect(echoed.stdout).toBe('Grüße, 東京');
  });

  it('applies env and cwd in the PowerShell wrapper', async () => {
    const result = await transport.exec({
      command: 'Write-Output "version $env:KUBE_VERSION"',
      env: { KUBE_VERSION: "v1.31 'quoted'" },
    });
    expect(result.stdout).toBe("version v1.31 'quoted'\r\n");
    const cwd = await transport.exec({ command: '(Get-Location).Path', cwd: "C:\\Program Files\\it's" });
    expect(cwd.stdout).toBe("C:\\Program Files\\it's\r\n");
  });

  it('runs scripts longer than 8191 characters through the stdin bootstrap', async () => {
    const lines = Array.from({ length: 400 }, (_, i) => `Write-Output 'line ${i} ${'x'.repeat(20)}'`);
    const script = lines.join('\n');
    expect(script.length).toBeGreaterThan(8191);
    const before = t.server.stats.requests.Send ?? 0;
    const result = await transport.exec({ command: script });
    expect(result.exitCode).toBe(0);
    const out = result.stdout.split('\r\n').filter(Boolean);
    expect(out).toHaveLength(400);
    expect(out[399]).toBe(`line 399 ${'x'.repeat(20)}`);
    // The script went over stdin, not on the command line.
    expect((t.server.stats.requests.Send ?? 0) - before).toBeGreaterThan(0);
    expect(MAX_COMMAND_LINE).toBeLessThan(8191);
  });

  it('a long script still gets its own stdin after the bootstrap line', async () => {
    const padding = Array.from({ length: 300 }, (_, i) => `$pad${i} = '${'y'.repeat(20)}'`).join('\n');
    const result = await transport.exec({
      command: `${padding}\n[Console]::Out.Write([Console]::In.ReadToEnd())`,
      stdin: 'from stdin',
    });
    expect(result.stdout).toBe('from stdin');
  });

  it('returns 10 MB of output split across Receive responses under MaxEnvelopeSize', async () => {
    const before = t.server.stats.requests.Receive ?? 0;
    const result = await transport.exec({ command: "[Console]::Out.Write('0123456789' * 1048576)" });
    expect(result.exitCode).toBe(0);
    expect(result.stdout.length).toBe(10 * 1024 * 1024);
    expect(result.stdout.slice(0, 20)).toBe('01234567890123456789');
    // Receive asks for 512000-byte envelopes (Windows Server 2012+'s default limit): each holds
    // under 384 KB of base64-decoded output, so 10 MB needs at least 28 Receives.
    expect((t.server.stats.requests.Receive ?? 0) - before).toBeGreaterThanOrEqual(28);
  });

  it('streams output live through onOutput', async () => {
    const seen: string[] = [];
    const result = await transport.exec({
      command: "Write-Output 'one'\nWrite-Error 'two' -ErrorAction Continue",
      onOutput: (c) => seen.push(`${c.stream}:${c.data}`),
    });
    expect(result.exitCode).toBe(0);
    expect(seen).toContain('stdout:one\r\n');
    expect(seen.some((s) => s.startsWith('stderr:two'))).toBe(true);
  });

  it('times out a command: signals terminate and reports timedOut', async () => {
    const result = await transport.exec({ command: 'Start-Sleep -Seconds 30', timeoutMs: 1500 });
    expect(result.timedOut).toBe(true);
    expect(result.failed).toBe(true);
    expect(result.exitCode).toBeNull();
    expect(result.stderr).toMatch(/timed out after 1500 ms/);
    // The shell is still usable.
    expect((await transport.exec({ command: "Write-Output 'still here'" })).stdout).toBe('still here\r\n');
  });

  it('an aborted signal stops the command and fails the result', async () => {
    // Aborted once the command runs (its first line arrived), not after a guessed delay.
    const controller = new AbortController();
    const result = await transport.exec({
      command: "Write-Output 'started'\nStart-Sleep -Seconds 30",
      signal: controller.signal,
      onOutput: (chunk) => chunk.data.includes('started') && controller.abort(),
    });
    expect(result).toMatchObject({ failed: true, timedOut: false, exitCode: null });
    expect(result.stderr).toBe('cancelled');
  });

  it('runs raw cmd.exe commands with execRaw', async () => {
    const result = await transport.execRaw({
      command: 'cmd',
      args: ['/c', 'echo', 'raw', '&', 'exit', '/b', '4'],
    });
    expect(result).toMatchObject({ exitCode: 4, stdout: 'raw\r\n', failed: true });
    expect(result.command).toBe('cmd /c echo raw & exit /b 4');
  });

  it('refuses become (no sudo on Windows) with a clear message', async () => {
    const result = await transport.exec({ command: 'whoami', become: true });
    expect(result.failed).toBe(true);
    expect(result.stderr).toMatch(/become is not supported over WinRM/);
  });

  it('copies a 10 MB file both ways with SHA-256 verified on both sides', async () => {
    const data = randomBytes(10 * 1024 * 1024 + 17);
    const local = join(dir, 'big.bin');
    await writeFile(local, data);
    const put = await transport.put({ localPath: local, remotePath: 'C:\\k\\big.bin' });
    expect(put).toMatchObject({ failed: false, exitCode: 0 });
    expect(sha256(t.files.read('C:\\k\\big.bin')!)).toBe(sha256(data));
    const back = join(dir, 'back.bin');
    const get = await transport.get({ remotePath: 'C:\\K\\BIG.BIN', localPath: back });
    expect(get).toMatchObject({ failed: false, exitCode: 0 });
    expect(sha256(await readFile(back))).toBe(sha256(data));
  });

  it('copies in-memory content, including an empty file', async () => {
    expect((await transport.put({ content: 'Grüße\r\n', remotePath: 'C:\\k\\a.txt' })).failed).toBe(false);
    expect(t.files.read('C:\\k\\a.txt')?.toString('utf8')).toBe('Grüße\r\n');
    expect((await transport.put({ content: '', remotePath: 'C:\\k\\empty.txt' })).failed).toBe(false);
    const back = join(dir, 'empty.txt');
    expect((await transport.get({ remotePath: 'C:\\k\\empty.txt', localPath: back })).failed).toBe(false);
    expect((await readFile(back)).length).toBe(0);
  });

  it('detects a corrupted upload on the far side and a corrupted download on the near side', async () => {
    t.faults.corruptUpload = true;
    try {
      const put = await transport.put({ content: randomBytes(4096), remotePath: 'C:\\k\\bad.bin' });
      expect(put.failed).toBe(true);
      expect(put.exitCode).toBe(2);
      expect(put.stderr).toMatch(/SHA-256 mismatch after upload/);
      expect(t.files.has('C:\\k\\bad.bin')).toBe(false);
    } finally {
      t.faults.corruptUpload = false;
    }
    t.files.write('C:\\k\\good.bin', randomBytes(4096));
    t.faults.corruptDownload = true;
    try {
      const target = join(dir, 'bad-download.bin');
      const get = await transport.get({ remotePath: 'C:\\k\\good.bin', localPath: target });
      expect(get.failed).toBe(true);
      expect(get.stderr).toMatch(
        /SHA-256 mismatch: host reports [0-9a-f]{64}, received bytes hash to [0-9a-f]{64}/,
      );
      await expect(readFile(target)).rejects.toThrow(/ENOENT/);
    } finally {
      t.faults.corruptDownload = false;
    }
  });

  it('reports a missing remote file on get', async () => {
    const get = await transport.get({ remotePath: 'C:\\nope.txt', localPath: join(dir, 'nope.txt') });
    expect(get.failed).toBe(true);
    expect(get.stderr).toMatch(/Cannot find path 'C:\\nope.txt'/);
  });

  it('re-creates the shell when it vanished on the server', async () => {
    for (const id of [...t.server.shells.shells.keys()]) t.server.shells.delete(id);
    const result = await transport.exec({ command: "Write-Output 'new shell'" });
    expect(result.stdout).toBe('new shell\r\n');
  });
});

describe('WinrmTransport protocol edge cases', () => {
  it('re-issues Receive after w:TimedOut faults when output comes later than OperationTimeout', async () => {
    const t = await startTestServer({ delayOutputMs: 2500 });
    const transport = transportFor(t.server, { operationTimeoutSec: 1 });
    try {
      await transport.connect();
      const result = await transport.exec({ command: "Write-Output 'late'" });
      expect(result).toMatchObject({ exitCode: 0, stdout: 'late\r\n', failed: false });
      // Output comes 2.5 s after the start, so the first 1-second Receive must have timed out.
      expect(t.server.stats.requests.Receive).toBeGreaterThanOrEqual(2);
      expect(t.server.stats.faults['w:TimedOut']).toBeGreaterThanOrEqual(1);
    } finally {
      await transport.close();
      await t.server.stop();
    }
  });

  it('a connection that keeps dropping mid-command fails that command clearly; the next command reconnects', async () => {
    const t = await startTestServer();
    const transport = transportFor(t.server);
    try {
      await transport.connect();
      // A dropped Receive is sent again on a new connection (dropped-connections test): here every
      // attempt is dropped.
      t.server.controls.dropNext = { action: 'Receive', count: MAX_ATTEMPTS };
      const lost = await transport.exec({ command: "Write-Output 'lost'" });
      expect(lost.failed).toBe(true);
      expect(lost.exitCode).toBeNull();
      expect(lost.stderr).toMatch(
        /^win1: connection to http:\/\/127\.0\.0\.1:\d+\/wsman lost during Receive/,
      );
      const next = await transport.exec({ command: "Write-Output 'back'" });
      expect(next).toMatchObject({ exitCode: 0, stdout: 'back\r\n' });
      expect(t.server.stats.connections).toBe(MAX_ATTEMPTS + 1);
      expect(t.server.stats.requests['ntlm-authenticate']).toBe(MAX_ATTEMPTS + 1);
    } finally {
      await transport.close();
      await t.server.stop();
    }
  });

  it('falls back to smaller Send envelopes when the host refuses large ones (w:EncodingLimit)', async () => {
    const t = await startTestServer({ maxEnvelopeSize: 153_600 });
    const transport = transportFor(t.server);
    try {
      await transport.connect();
      const data = randomBytes(2 * 1024 * 1024);
      const put = await transport.put({ content: data, remotePath: 'C:\\k\\fallback.bin' });
      expect(put).toMatchObject({ failed: false, exitCode: 0 });
      expect(sha256(t.files.read('C:\\k\\fallback.bin')!)).toBe(sha256(data));
      expect(t.server.stats.faults['w:EncodingLimit']).toBe(1);
    } finally {
      await transport.close();
      await t.server.stop();
    }
  });

  it("receives in the host's smaller envelopes when its MaxEnvelopeSizekb is below what we ask (MS-WSMV 3.1.4.1.7)", async () => {
    const t = await startTestServer({ maxEnvelopeSize: 153_600 });
    const transport = transportFor(t.server);
    try {
      await transport.connect();
      const result = await transport.exec({ command: "[Console]::Out.Write('0123456789' * 104858)" });
      expect(result).toMatchObject({ failed: false, exitCode: 0 });
      expect(result.stdout.length).toBe(1_048_580);
      expect(t.server.stats.faults['w:EncodingLimit']).toBeUndefined();
      // The host's 153600-byte envelopes hold about 110 KB of output each.
      expect(t.server.stats.requests.Receive ?? 0).toBeGreaterThanOrEqual(10);
    } finally {
      await transport.close();
      await t.server.stop();
    }
  });

  it('wrong password: connect throws a ConnectionError naming host and user', async () => {
    const t = await startTestServer();
    const transport = transportFor(t.server, { password: 'not-the-password' });
    try {
      const error = await transport.connect().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ConnectionError);
      expect((error as Error).message).toBe(
        'win1: authentication failed for user vagrant (wrong user or password; HTTP 401)',
      );
      expect((error as Error).message).not.toContain('not-the-password');
    } finally {
      await transport.close();
      await t.server.stop();
    }
  });

  it('connection refused: a clear ConnectionError', async () => {
    const t = await startTestServer();
    const port = t.server.port;
    await t.server.stop();
    const transport = transportFor({ ...t.server, port });
    const error = await transport.connect().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConnectionError);
    expect((error as Error).message).toBe(`win1: connection refused at http://127.0.0.1:${port}/wsman`);
    await transport.close();
  });

  it('resolves the password from a SecretRef at connect time', async () => {
    const t = await startTestServer();
    process.env.KUBEMIX_TEST_WINRM_PASSWORD = PASSWORD;
    const transport = transportFor(t.server, { password: { env: 'KUBEMIX_TEST_WINRM_PASSWORD' } });
    try {
      await transport.connect();
      expect((await transport.exec({ command: "Write-Output 'ok'" })).stdout).toBe('ok\r\n');
    } finally {
      delete process.env.KUBEMIX_TEST_WINRM_PASSWORD;
      await transport.close();
      await t.server.stop();
    }
  });

  it('the server enforces MaxShellsPerUser with a quota fault', async () => {
    const t = await startTestServer({ maxShellsPerUser: 1 });
    const first = transportFor(t.server);
    const second = transportFor(t.server);
    try {
      await first.connect();
      const error = await second.connect().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ConnectionError);
      expect((error as Error).message).toMatch(
        /w:QuotaLimit 2150859173.*maximum number of 1 concurrent shells/,
      );
    } finally {
      await first.close();
      await second.close();
      await t.server.stop();
    }
  });

  it('the server refuses unencrypted SOAP on an NTLM session (AllowUnencrypted=false) with HTTP 400', async () => {
    const t = await startTestServer();
    try {
      const { NtlmClient } = await import('../../../src/transport/winrm/ntlm/client.js');
      const { Client } = await import('undici');
      const client = new Client(`http://127.0.0.1:${t.server.port}`);
      const ntlm = new NtlmClient({ account: 'vagrant', password: PASSWORD });
      const post = (headers: Record<string, string>, body = '') =>
        client.request({ method: 'POST', path: '/wsman', headers, body }).then(async (r) => {
          await r.body.dump();
          return r;
        });
      const first = await post({ authorization: `Negotiate ${ntlm.negotiate().toString('base64')}` });
      const challenge = String(first.headers['www-authenticate']).split(' ')[1]!;
      const auth = ntlm.authenticate(Buffer.from(challenge, 'base64'));
      expect((await post({ authorization: `Negotiate ${auth.message.toString('base64')}` })).statusCode).toBe(
        200,
      );
      const clear = await post({ 'content-type': 'application/soap+xml;charset=UTF-8' }, '<s:Envelope/>');
      expect(clear.statusCode).toBe(400);
      await client.close();
    } finally {
      await t.server.stop();
    }
  });
});

describe('WinrmTransport, Basic over https', () => {
  let t: TestServer;
  let dir: string;
  beforeAll(async () => {
    t = await startTestServer({ https: true });
    dir = await testTempDir('winrm-tls');
  });
  afterAll(async () => {
    await t?.server.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('runs commands with a pinned certificate fingerprint', async () => {
    const transport = transportFor(t.server, {
      auth: 'basic',
      tls: { fingerprint: t.server.certificate!.fingerprint256 },
    });
    try {
      await transport.connect();
      const result = await transport.exec({ command: "Write-Output 'over tls'; exit 5" });
      expect(result).toMatchObject({ exitCode: 5, stdout: 'over tls\r\n' });
    } finally {
      await transport.close();
    }
  });

  it('runs commands trusting the certificate through a CA file', async () => {
    const caFile = join(dir, 'ca.pem');
    await writeFile(caFile, t.server.certificate!.cert);
    const transport = transportFor(t.server, { auth: 'basic', tls: { caFile } });
    try {
      await transport.connect();
      expect((await transport.exec({ command: "Write-Output 'ca ok'" })).stdout).toBe('ca ok\r\n');
    } finally {
      await transport.close();
    }
  });

  it('NTLM over https authenticates the connection and sends plain SOAP inside TLS', async () => {
    const transport = transportFor(t.server, { auth: 'ntlm', tls: { insecure: true } });
    try {
      await transport.connect();
      expect((await transport.exec({ command: "Write-Output 'both'" })).stdout).toBe('both\r\n');
      expect(t.server.stats.requests['ntlm-authenticate']).toBe(1);
    } finally {
      await transport.close();
    }
  });

  it('a wrong fingerprint is a clear ConnectionError', async () => {
    const wrong = `${'AA:'.repeat(31)}AA`;
    const transport = transportFor(t.server, { auth: 'basic', tls: { fingerprint: wrong } });
    const error = await transport.connect().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConnectionError);
    expect((error as Error).message).toMatch(
      /^win1: TLS certificate fingerprint mismatch: expected sha256 (aa){32}, server presented [0-9a-f]{64}$/,
    );
    await transport.close();
  });

  it('an untrusted self-signed certificate is refused with a hint', async () => {
    const transport = transportFor(t.server, { auth: 'basic' });
    const error = await transport.connect().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConnectionError);
    expect((error as Error).message).toMatch(
      /TLS certificate of https:\/\/127\.0\.0\.1:\d+\/wsman is not trusted .*tls\.caFile, tls\.fingerprint or tls\.insecure/,
    );
    await transport.close();
  });

  it('https against a plain-http port is reported as a TLS mismatch', async () => {
    const plain = await startTestServer();
    const transport = transportFor(plain.server, { scheme: 'https', auth: 'basic', tls: { insecure: true } });
    try {
      const error = await transport.connect().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ConnectionError);
      expect((error as Error).message).toMatch(
        /TLS handshake with https:\/\/127\.0\.0\.1:\d+\/wsman failed: is the port speaking plain HTTP\?/,
      );
    } finally {
      await transport.close();
      await plain.server.stop();
    }
  });

  it('Basic over plain http is refused before anything is sent', async () => {
    const plain = await startTestServer();
    const transport = transportFor(plain.server, { scheme: 'http', auth: 'basic' });
    try {
      const error = await transport.connect().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(WinrmConfigError);
      expect((error as WinrmConfigError).exitCode).toBe(2);
      expect((error as Error).message).toMatch(
        /^win1: winrm: auth 'basic' over plain http would send the password in clear text/,
      );
      expect(plain.server.stats.connections).toBe(0);
    } finally {
      await transport.close();
      await plain.server.stop();
    }
  });

  it('Basic over plain http works only with allowBasicOverHttp and a server that allows it', async () => {
    const plain = await startTestServer({ allowUnencrypted: true });
    const transport = transportFor(plain.server, { scheme: 'http', auth: 'basic', allowBasicOverHttp: true });
    try {
      await transport.connect();
      expect((await transport.exec({ command: "Write-Output 'clear'" })).stdout).toBe('clear\r\n');
    } finally {
      await transport.close();
      await plain.server.stop();
    }
  });
});
