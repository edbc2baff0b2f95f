import { spawn } from 'node:child_process';
import { closeSync, existsSync, openSync } from 'node:fs';
import { readFile, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import type { InventoryHost } from '../../src/types/inventory.js';
import { pollUntil } from './poll.js';
import { makeTempDir } from './temp-dir.js';

/** Options for {@link startLab}. */
export interface StartLabOptions {
  /** Number of hosts (lab-01 ... lab-NN). */
  count: number;
  /** Lab directory; a fresh temp directory when omitted. Must not be under /root. */
  dir?: string;
  /** Files copied into every host's /opt/kubemix-lab/bin (first on PATH). */
  standinsDir?: string;
  /** Use loopback addresses even where network namespaces work. */
  noNetns?: boolean;
  /**
   * Give every host a NAT-like first NIC (lab.sh --nat-nic): eth0 10.0.2.15/24 on every host with
   * the default route, the shared network on eth1. Needs network namespaces.
   */
  natInterface?: boolean;
  /** sshd port on every host (default 22). */
  port?: number;
  /** Hosts whose sshd offers no SFTP subsystem (no `Subsystem sftp` line), or 'all'. */
  noSftp?: string[] | 'all';
  /** Hosts without an scp program, or 'all'. */
  noScp?: string[] | 'all';
}

/** A running lab: real sshd hosts, plus the files lab.sh wrote for them. */
export interface Lab {
  dir: string;
  /** `netns`: hosts in network namespaces on a bridge; `loopback`: sshd on 127.x addresses. */
  mode: 'netns' | 'loopback';
  /**
   * The bridge joining the hosts' namespaces (netns mode), `kmxbr<ID>`, with 10.233.ID.1/24 in this
   * machine's namespace: more lab members (simulated Windows hosts) can take addresses on it.
   */
  bridge?: string;
  hosts: InventoryHost[];
  /** Ansible YAML inventory (group `lab`). */
  inventoryPath: string;
  /** known_hosts with every host's key: strict host-key checking works. */
  knownHostsPath: string;
  /** OpenSSH client config with a `Host lab-NN` block per host. */
  sshConfigPath: string;
  /** The lab client key (no passphrase), authorized for root on every host. */
  privateKeyPath: string;
  /** Kills every process of one host (sshd and its sessions), as a crash would. */
  killHost(name: string): Promise<void>;
  /** Starts a killed host again with the same key and address. */
  startHost(name: string): Promise<void>;
  /** Stops every host and removes namespaces and the bridge. Safe to call twice. */
  stop(): Promise<void>;
}

/** Path of lab.sh, from the source tree or from dist/. */
export function labScriptPath(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 6; i++) {
    const candidate = join(dir, 'scripts', 'lab', 'lab.sh');
    if (existsSync(join(dir, 'package.json')) && existsSync(candidate)) return candidate;
    const beside = join(dir, 'lab.sh');
    if (existsSync(beside)) return beside;
    dir = dirname(dir);
  }
  throw new Error(`scripts/lab/lab.sh not found above ${fileURLToPath(import.meta.url)}`);
}

function runLabScript(args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', [labScriptPath(), ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d: Buffer) => {
      output += d.toString();
    });
    child.stderr.on('data', (d: Buffer) => {
      output += d.toString();
    });
    child.on('error', reject);
    child.on('exit', (code) => {
      if (code === 0) resolve();
      else reject(new Error(`lab.sh ${args.join(' ')} failed (exit ${code}): ${output.trim()}`));
    });
  });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Starts a lab of `count` real sshd hosts. The lab.sh supervisor runs as a child of this process
 * (so it is reaped here) until {@link Lab.stop}.
 */
export async function startLab(options: StartLabOptions): Promise<Lab> {
  const ownDir = options.dir === undefined;
  const dir = options.dir ?? (await makeTempDir('lab'));
  const args = ['start', String(options.count), dir, '--foreground'];
  if (options.noNetns) args.push('--no-netns');
  if (options.natInterface) args.push('--nat-nic');
  if (options.standinsDir) args.push('--standins', options.standinsDir);
  const names = (list: string[] | 'all') => (list === 'all' ? 'all' : list.join(','));
  if (options.noSftp) args.push('--no-sftp', names(options.noSftp));
  if (options.noScp) args.push('--no-scp', names(options.noScp));
  const log = openSync(join(dir, 'supervisor.log'), 'a');
  const env =
    options.port === undefined ? process.env : { ...process.env, KMX_LAB_PORT: String(options.port) };
  const child = spawn('bash', [labScriptPath(), ...args], { stdio: ['ignore', log, log], env });
  closeSync(log);
  let exited: number | null | undefined;
  child.on('exit', (code) => {
    exited = code;
  });
  const ready = await pollUntil(
    () => existsSync(join(dir, 'ready')) || existsSync(join(dir, 'failed')) || exited !== undefined,
    { timeoutMs: 60_000, intervalMs: 20 },
  );
  if (!ready || !existsSync(join(dir, 'ready'))) {
    const failed = existsSync(join(dir, 'failed'));
    const why = failed
      ? await readFile(join(dir, 'failed'), 'utf8')
      : await readFile(join(dir, 'supervisor.log'), 'utf8').catch(() => '');
    child.kill('SIGKILL');
    await runLabScript(['stop', dir]).catch(() => undefined);
    throw new Error(`lab did not start in ${dir}: ${why.trim() || 'timed out'}`);
  }
  const labEnv = await readFile(join(dir, 'lab.env'), 'utf8');
  const mode = /MODE=netns/.test(labEnv) ? 'netns' : 'loopback';
  const id = /^ID=(\d+)$/m.exec(labEnv)?.[1];
  const privateKeyPath = join(dir, 'id_ed25519');
  const hosts = parseLabInventory(await readFile(join(dir, 'inventory.yml'), 'utf8'));
  let stopped = false;
  return {
    dir,
    mode,
    ...(mode === 'netns' && id ? { bridge: `kmxbr${id}` } : {}),
    hosts,
    inventoryPath: join(dir, 'inventory.yml'),
    knownHostsPath: join(dir, 'known_hosts'),
    sshConfigPath: join(dir, 'ssh_config'),
    privateKeyPath,
    killHost: (name) => runLabScript(['kill-host', dir, name]),
    startHost: (name) => runLabScript(['start-host', dir, name]),
    async stop() {
      if (stopped) return;
      stopped = true;
      await runLabScript(['stop', dir]);
      if (exited === undefined) {
        await Promise.race([new Promise((r) => child.once('exit', r)), sleep(5000)]);
      }
      // A directory we made ourselves goes away with the lab (keys, logs and all).
      if (ownDir) await rm(dir, { recursive: true, force: true });
    },
  };
}

interface RawInventory {
  all?: { hosts?: Record<string, Record<string, unknown>> };
}

/** Turns the inventory lab.sh wrote into kubemix hosts (strict host keys, key file by reference). */
export function parseLabInventory(text: string): InventoryHost[] {
  const raw = parse(text) as RawInventory;
  return Object.entries(raw.all?.hosts ?? {}).map(([name, vars]) => ({
    name,
    address: String(vars['ansible_host']),
    port: Number(vars['ansible_port'] ?? 22),
    os: 'linux' as const,
    connection: 'ssh' as const,
    role: 'worker' as const,
    group: 'lab',
    credentials: {
      user: String(vars['ansible_user'] ?? 'root'),
      privateKey: { file: String(vars['ansible_ssh_private_key_file']) },
    },
    hostKeyPolicy: 'strict' as const,
  }));
}
