import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sshShellProgram } from '../../../fixtures/windows-sim/lab.js';
import { type CommandSocket, startCommandSocket } from '../../../fixtures/windows-sim/socket-bridge.js';
import { createDefaultHandler } from '../../../fixtures/winrm-server/default-handler.js';
import { TestFileSystem } from '../../../fixtures/winrm-server/test-file-system.js';
import type { ScriptHostFaults } from '../../../fixtures/winrm-server/test-script-host.js';
import { startWindowsSshHost, type WindowsSshHost } from '../../../scripts/lab/windows-ssh-host.js';
import { shQuote } from '../../../src/quote/index.js';
import { SshTransport } from '../../../src/transport/ssh/index.js';
import { testTempDir } from '../../helpers/temp.js';

// PowerShell mode of the SSH transport against a real OpenSSH sshd whose sessions are "PowerShell":
// ForceCommand hands the command line and stdin to the WinRM test server's handler (it decodes
// -EncodedCommand and the stdin bootstrap, runs the client's wrapper and copy scripts).
const run = promisify(execFile);
let dir: string;
let socket: CommandSocket;
let host: WindowsSshHost;
let transport: SshTransport;
const files = new TestFileSystem();
const faults: ScriptHostFaults = {};

function newTransport(): SshTransport {
  return new SshTransport({
    host: 'win-ps',
    address: host.address,
    port: host.port,
    user: 'root',
    privateKey: { file: join(dir, 'id_ed25519') },
    knownHostsFiles: [host.knownHostsPath],
    sshConfigPath: false,
    remoteShell: 'powershell',
    retries: 0,
  });
}

beforeAll(async () => {
  dir = await testTempDir('ps-ssh');
  await run('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', join(dir, 'id_ed25519')]);
  socket = await startCommandSocket({
    path: join(dir, 'host.sock'),
    handler: createDefaultHandler({ files, faults }),
  });
  host = await startWindowsSshHost({
    name: 'win-ps',
    dir: join(dir, 'host'),
    forceCommand: `${shQuote(process.execPath)} ${shQuote(sshShellProgram())} ${shQuote(socket.path)}`,
    authorizedKeyPath: join(dir, 'id_ed25519.pub'),
  });
  transport = newTransport();
  await transport.connect();
});

afterAll(async () => {
  await transport?.close();
  await host?.stop();
  await socket?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('SSH transport, PowerShell mode', () => {
  it('returns exit codes with stdout and stderr kept apart', async () => {
    const result = await transport.exec({
      command: "Write-Output 'out'\n[Console]::Error.WriteLine('err')\nexit 3",
    });
    expect(result).toMatchObject({
      exitCode: 3,
      stdout: 'out\r\n',
      stderr: 'err\r\n',
      failed: true,
      host: 'win-ps',
    });
    const ok = await transport.exec({ command: "Write-Output 'fine'" });
    expect(ok).toMatchObject({ exitCode: 0, stdout: 'fine\r\n', failed: false });
  });

  it('decodes CLIXML error records and reports terminating errors', async () => {
    const warned = await transport.exec({
      command: "Write-Error 'careful' -ErrorAction Continue\nWrite-Output 'done'",
    });
    expect(warned.stdout).toBe('done\r\n');
    expect(warned.stderr).toBe('careful\n');
    const thrown = await transport.exec({ command: "throw 'boom'" });
    expect(thrown).toMatchObject({ exitCode: 1, failed: true });
    expect(thrown.stderr.trim()).toBe('boom');
  });

  it('applies env and cwd, passes stdin, and keeps non-ASCII text', async () => {
    const result = await transport.exec({
      command: 'Write-Output $env:KMX_GREETING\nWrite-Output (Get-Location).Path\n[Console]::In.ReadToEnd()',
      env: { KMX_GREETING: 'grüße ✓ 日本' },
      cwd: 'C:\\k',
      stdin: 'piped ✓\n',
    });
    expect(result.stdout).toBe('grüße ✓ 日本\r\nC:\\k\r\npiped ✓\n\r\n');
  });

  it('sends scripts longer than a command line through the stdin bootstrap, user stdin after it', async () => {
    const long = 'x'.repeat(12_000);
    const result = await transport.exec({
      command: `$kmLong = '${long}'\nWrite-Output $kmLong\n[Console]::In.ReadToEnd()`,
      stdin: 'tail',
    });
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toBe(`${long}\r\ntail\r\n`);
  });

  it('copies files both ways with hash checks, and catches a corrupted upload', async () => {
    const data = randomBytes(300_000);
    const put = await transport.put({ remotePath: 'C:\\k\\blob.bin', content: data });
    expect(put).toMatchObject({ failed: false, exitCode: 0 });
    expect(files.read('C:\\k\\blob.bin')?.equals(data)).toBe(true);
    const local = join(dir, 'blob.copy');
    const get = await transport.get({ remotePath: 'C:\\k\\blob.bin', localPath: local });
    expect(get.failed).toBe(false);
    expect((await readFile(local)).equals(data)).toBe(true);
    const source = join(dir, 'source.txt');
    await writeFile(source, 'from a local file\n');
    expect((await transport.put({ remotePath: 'C:\\k\\source.txt', localPath: source })).failed).toBe(false);
    expect(files.read('C:\\k\\source.txt')?.toString()).toBe('from a local file\n');
    faults.corruptUpload = true;
    try {
      const bad = await transport.put({ remotePath: 'C:\\k\\bad.bin', content: data });
      expect(bad.failed).toBe(true);
      expect(bad.stderr).toContain('SHA-256 mismatch');
      expect(files.has('C:\\k\\bad.bin')).toBe(false);
    } finally {
      faults.corruptUpload = false;
    }
    const missing = await transport.get({ remotePath: 'C:\\nope.bin', localPath: join(dir, 'nope') });
    expect(missing.failed).toBe(true);
    expect(missing.stderr).toContain("Cannot find path 'C:\\nope.bin'");
  });

  it('times out by closing the channel, and refuses become', async () => {
    const slow = await transport.exec({ command: 'Start-Sleep -Seconds 30', timeoutMs: 500 });
    expect(slow).toMatchObject({ timedOut: true, failed: true, exitCode: null });
    expect(slow.stderr).toContain('win-ps: timed out after 500 ms');
    const become = await transport.exec({ command: 'whoami', become: true });
    expect(become).toMatchObject({ failed: true, exitCode: null });
    expect(become.stderr).toContain('become is not supported on Windows over SSH');
    // The transport still works afterwards.
    expect((await transport.exec({ command: "Write-Output 'still here'" })).stdout).toBe('still here\r\n');
  });

  it('reports a connection lost mid-command, fails while the host is down, and reconnects when it is back', async () => {
    // Take the host down once the command is really running: when its first line arrives.
    let started!: () => void;
    const running = transport.exec({
      command: "Write-Output 'started'\nStart-Sleep -Seconds 30",
      onOutput: (chunk) => chunk.data.includes('started') && started(),
    });
    await new Promise<void>((resolve) => {
      started = resolve;
    });
    await host.down();
    const lost = await running;
    expect(lost).toMatchObject({ failed: true, exitCode: null });
    expect(lost.stderr).toMatch(/win-ps/);
    const refused = await transport.exec({ command: "Write-Output 'x'" });
    expect(refused.failed).toBe(true);
    expect(refused.stderr).toMatch(/ECONNREFUSED|refused/i);
    await host.up();
    const back = await transport.exec({ command: "Write-Output 'back'" });
    expect(back).toMatchObject({ exitCode: 0, stdout: 'back\r\n' });
  });
});
