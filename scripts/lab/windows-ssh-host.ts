import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { connect, createServer } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { shQuote } from '../../src/quote/index.js';
import { pollUntil } from './poll.js';

const run = promisify(execFile);

/** Options of {@link startWindowsSshHost}. */
export interface WindowsSshHostOptions {
  /** Inventory name (also the sshd key comment). */
  name: string;
  /** Directory for this host's keys, config and log (not under /root). */
  dir: string;
  /**
   * What sshd runs for every session instead of a shell (ForceCommand), e.g.
   * `/usr/bin/node .../ssh-shell.js /tmp/x.sock`. It sees the client's command in $SSH_ORIGINAL_COMMAND.
   */
  forceCommand: string;
  /** Client public key to authorize (the lab's key). */
  authorizedKeyPath: string;
  /** Listen address (loopback). Default 127.0.0.1. */
  address?: string;
  /** Port; a free one when omitted. */
  port?: number;
  sshd?: string;
}

/** A running lab sshd whose "shell" is a program (a simulated Windows host's PowerShell). */
export interface WindowsSshHost {
  name: string;
  address: string;
  port: number;
  /** known_hosts line file for strict host-key checking. */
  knownHostsPath: string;
  sshdLogPath: string;
  /** Kills sshd and every session (as a reboot or a crash would): connections are refused. */
  down(): Promise<void>;
  /** Starts sshd again on the same address, port and host key. */
  up(): Promise<void>;
  stop(): Promise<void>;
}

/** A free TCP port on an address (the kernel picks it; sshd binds it a moment later). */
export async function freePort(address = '127.0.0.1'): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, address, () => resolve());
  });
  const port = (server.address() as { port: number }).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

function tcpOpen(address: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: address, port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** Whether sshd can get its own mount + PID namespace here (root with unshare). */
async function canUnshare(): Promise<boolean> {
  try {
    await run('unshare', ['--mount', '--pid', '--fork', '--mount-proc', '--propagation', 'private', 'true']);
    return true;
  } catch {
    return false;
  }
}

/**
 * Starts an OpenSSH sshd on loopback whose sessions all run `forceCommand`: the lab stand-in
 * for a Windows host with OpenSSH. Where possible sshd runs in its own mount and PID namespace
 * (private empty /root, so no login files run; killing it ends every session, as a reboot
 * does). sshd is a child of this process and is stopped by PID.
 */
export async function startWindowsSshHost(options: WindowsSshHostOptions): Promise<WindowsSshHost> {
  const address = options.address ?? '127.0.0.1';
  const port = options.port ?? (await freePort(address));
  const sshd = options.sshd ?? '/usr/sbin/sshd';
  if (!existsSync(sshd))
    throw new Error(`${sshd} not found: apt-get install -y --no-install-recommends openssh-server`);
  const dir = options.dir;
  if (dir.startsWith('/root/'))
    throw new Error(`the Windows SSH host directory must not be under /root: ${dir}`);
  await mkdir(dir, { recursive: true });
  await mkdir('/run/sshd', { recursive: true, mode: 0o755 });
  const hostKey = join(dir, 'ssh_host_ed25519_key');
  if (!existsSync(hostKey))
    await run('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', options.name, '-f', hostKey]);
  const authorizedKeys = join(dir, 'authorized_keys');
  await writeFile(authorizedKeys, await readFile(options.authorizedKeyPath), { mode: 0o600 });
  const config = join(dir, 'sshd_config');
  await writeFile(
    config,
    [
      `ListenAddress ${address}:${port}`,
      `HostKey ${hostKey}`,
      'PidFile none',
      'PermitRootLogin prohibit-password',
      'PubkeyAuthentication yes',
      'PasswordAuthentication no',
      'KbdInteractiveAuthentication no',
      'UsePAM no',
      'StrictModes no',
      'UseDNS no',
      'MaxStartups 100:30:200',
      'MaxSessions 10',
      `AuthorizedKeysFile ${authorizedKeys}`,
      `ForceCommand ${options.forceCommand}`,
      'PrintMotd no',
      'PrintLastLog no',
      'LogLevel INFO',
      '',
    ].join('\n'),
  );
  const knownHostsPath = join(dir, 'known_hosts');
  const pub = (await readFile(`${hostKey}.pub`, 'utf8')).trim().split(' ').slice(0, 2).join(' ');
  await writeFile(knownHostsPath, `[${address}]:${port} ${pub}\n`);
  const sshdLogPath = join(dir, 'sshd.log');
  const isolated = await canUnshare();
  let child: ChildProcess | undefined;

  const start = async () => {
    const sshdArgs = ['-D', '-f', config, '-E', sshdLogPath];
    child = isolated
      ? spawn(
          'unshare',
          [
            '--mount',
            '--pid',
            '--fork',
            '--kill-child',
            '--mount-proc',
            '--propagation',
            'private',
            'sh',
            '-c',
            `mount -t tmpfs -o mode=0700 kmx-root /root && exec ${[sshd, ...sshdArgs].map(shQuote).join(' ')}`,
          ],
          { stdio: 'ignore' },
        )
      : spawn(sshd, sshdArgs, { stdio: 'ignore' });
    const started = child;
    let exited = false;
    started.once('exit', () => {
      exited = true;
    });
    const listening = await pollUntil(async () => exited || (await tcpOpen(address, port)), {
      timeoutMs: 15_000,
      intervalMs: 20,
    });
    if (!listening || exited) {
      const log = await readFile(sshdLogPath, 'utf8').catch(() => '');
      started.kill('SIGKILL');
      throw new Error(
        `sshd for ${options.name} did not listen on ${address}:${port}: ${log.trim().split('\n').slice(-3).join(' ')}`,
      );
    }
  };

  const kill = async () => {
    const current = child;
    child = undefined;
    if (!current || current.exitCode !== null || current.signalCode !== null) return;
    const gone = new Promise((resolve) => current.once('exit', resolve));
    current.kill('SIGKILL');
    await gone;
    // Without namespaces, sessions outlive the listener: wait until the port refuses at least.
    await pollUntil(async () => !(await tcpOpen(address, port)), { timeoutMs: 2_000, intervalMs: 20 });
  };

  await start();
  return {
    name: options.name,
    address,
    port,
    knownHostsPath,
    sshdLogPath,
    down: kill,
    async up() {
      if (!child) await start();
    },
    stop: kill,
  };
}
