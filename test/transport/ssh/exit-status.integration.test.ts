import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { type ClientChannel, Client as SshClient } from 'ssh2';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { sshShellProgram } from '../../../fixtures/windows-sim/lab.js';
import { type CommandSocket, startCommandSocket } from '../../../fixtures/windows-sim/socket-bridge.js';
import { createDefaultHandler } from '../../../fixtures/winrm-server/default-handler.js';
import { type Lab, startLab } from '../../../scripts/lab/lab.js';
import { startWindowsSshHost, type WindowsSshHost } from '../../../scripts/lab/windows-ssh-host.js';
import { SshTransport } from '../../../src/transport/ssh/index.js';
import { testTempDir } from '../../helpers/temp.js';
import { labTransport } from './helpers.js';

// On a loaded machine the client's event loop can run late: the exec reply, the command's output,
// its exit status and the channel close then arrive in one read and are parsed in one turn, before
// the transport has had a chance to listen to the channel. `kubemix down` lost the exit status of
// `kubeadm reset` on the Windows-over-SSH host this way ("the channel closed without an exit
// status"). These tests hand every exec channel to the transport only once the server's exit
// status has been parsed, which is that situation made certain instead of likely.
const exec = SshClient.prototype.exec as (...args: unknown[]) => unknown;

function deliverChannelsLate(): void {
  SshClient.prototype.exec = function (this: SshClient, ...args: unknown[]) {
    const callback = args.pop() as (error: Error | undefined, channel: ClientChannel) => void;
    return exec.call(this, ...args, (error: Error | undefined, channel: ClientChannel) => {
      if (error) return callback(error, channel);
      channel.once('exit', () => setImmediate(() => callback(undefined, channel)));
    });
  } as typeof SshClient.prototype.exec;
}

let lab: Lab;
let dir: string;
let socket: CommandSocket;
let windows: WindowsSshHost;

const q = (s: string) => `'${s.replace(/'/g, "'\\''")}'`;

beforeAll(async () => {
  lab = await startLab({ count: 1 });
  dir = await testTempDir('exit-status');
  socket = await startCommandSocket({ path: join(dir, 'win.sock'), handler: createDefaultHandler() });
  windows = await startWindowsSshHost({
    name: 'win-late',
    dir: join(dir, 'host'),
    forceCommand: `${q(process.execPath)} ${q(sshShellProgram())} ${q(socket.path)}`,
    authorizedKeyPath: `${lab.privateKeyPath}.pub`,
  });
});

afterEach(() => {
  SshClient.prototype.exec = exec as typeof SshClient.prototype.exec;
});

afterAll(async () => {
  await windows?.stop();
  await socket?.close();
  await lab?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('exit status of a command whose channel reaches the transport late', () => {
  it('is kept on an exec channel (PTY)', async () => {
    const t = labTransport(lab, 'lab-01');
    await t.connect();
    deliverChannelsLate();
    const result = await t.exec({ command: 'echo out; exit 3', pty: true });
    await t.close();
    expect(result).toMatchObject({ exitCode: 3, failed: true, stdout: 'out\r\n' });
    expect(result.stderr).not.toContain('without an exit status');
  });

  it('is kept in PowerShell mode (a Windows host over OpenSSH)', async () => {
    const t = new SshTransport({
      host: 'win-late',
      address: windows.address,
      port: windows.port,
      user: 'root',
      privateKey: { file: lab.privateKeyPath },
      knownHostsFiles: [windows.knownHostsPath],
      sshConfigPath: false,
      remoteShell: 'powershell',
      retries: 0,
    });
    await t.connect();
    deliverChannelsLate();
    const result = await t.exec({ command: "Write-Output 'reset done'; exit 3" });
    await t.close();
    expect(result).toMatchObject({ exitCode: 3, failed: true, stdout: 'reset done\r\n', stderr: '' });
  });
});
