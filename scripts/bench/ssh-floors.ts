/**
 * Benchmark pieces for `npm run bench` (issue 3): T x `/bin/true` on H lab hosts, four ways.
 *   (a) ssh2, one exec channel per command, on already-open connections (a floor)
 *   (b) ssh2, one persistent /bin/sh per host fed over one channel (a floor)
 *   (c) kubemix's SshTransport (connected first, then timed like the floors)
 *   (d) ansible-playbook (Debian's ansible-core: pipelining, forks 10, ControlPersist, no facts)
 * Tasks run in lockstep like Ansible's linear strategy: task i on every host, then task i+1.
 * Timings are for benchmarks only, never for pass/fail tests.
 */
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { connect as netConnect } from 'node:net';
import { join } from 'node:path';
import { Client, type ClientChannel } from 'ssh2';
import { SshTransport } from '../../src/transport/ssh/index.js';
import { parseKnownHosts, verifyHostKey } from '../../src/transport/ssh/known-hosts.js';
import type { InventoryHost } from '../../src/types/inventory.js';
import { killAll, processesWithEnv } from '../lab/marked-processes.js';
import { makeTempDir } from '../lab/temp-dir.js';

/** What every floor needs: the lab hosts and how to trust and log in to them. */
export interface FloorOptions {
  hosts: InventoryHost[];
  tasks: number;
  knownHostsPath: string;
  privateKeyPath: string;
  /** The command each task runs. Default `/bin/true`. */
  command?: string;
}

/** Wall time of the timed part, and the per task-host average. */
export interface FloorResult {
  name: string;
  hosts: number;
  tasks: number;
  wallMs: number;
  perTaskHostMs: number;
  /** Time to open the connections (not part of wallMs). */
  connectMs?: number;
}

function finish(name: string, options: FloorOptions, wallMs: number, connectMs?: number): FloorResult {
  const result: FloorResult = {
    name,
    hosts: options.hosts.length,
    tasks: options.tasks,
    wallMs: Math.round(wallMs),
    perTaskHostMs: Number((wallMs / (options.tasks * options.hosts.length)).toFixed(2)),
  };
  if (connectMs !== undefined) result.connectMs = Math.round(connectMs);
  return result;
}

async function openRaw(host: InventoryHost, options: FloorOptions): Promise<Client> {
  const entries = parseKnownHosts(readFileSync(options.knownHostsPath, 'utf8'), options.knownHostsPath);
  const port = host.port ?? 22;
  const sock = netConnect({ host: host.address, port });
  sock.setNoDelay(true);
  await new Promise<void>((resolve, reject) => {
    sock.once('connect', () => resolve());
    sock.once('error', reject);
  });
  const client = new Client();
  await new Promise<void>((resolve, reject) => {
    client.once('ready', () => resolve());
    client.once('error', reject);
    client.connect({
      sock,
      username: host.credentials?.user ?? 'root',
      privateKey: readFileSync(options.privateKeyPath),
      hostVerifier: (key: Buffer) =>
        verifyHostKey({ entries, host: host.address, port, key }).status === 'known',
    });
  });
  return client;
}

function execOnce(client: Client, command: string): Promise<number | null> {
  return new Promise((resolve, reject) => {
    client.exec(command, (error, channel) => {
      if (error) return reject(error);
      let code: number | null = null;
      channel.on('exit', (c: number | null) => {
        code = c;
      });
      channel.on('close', () => resolve(code));
      channel.resume();
      channel.stderr.resume();
    });
  });
}

export async function lockstep(
  hostsCount: number,
  tasks: number,
  run: (hostIndex: number) => Promise<unknown>,
): Promise<number> {
  const started = performance.now();
  for (let task = 0; task < tasks; task++) {
    await Promise.all(Array.from({ length: hostsCount }, (_, i) => run(i)));
  }
  return performance.now() - started;
}

/** (a) One fresh exec channel per command (every exec starts the user's login shell). */
export async function execChannelFloor(options: FloorOptions): Promise<FloorResult> {
  const command = options.command ?? '/bin/true';
  const t0 = performance.now();
  const clients = await Promise.all(options.hosts.map((h) => openRaw(h, options)));
  const connectMs = performance.now() - t0;
  try {
    const wall = await lockstep(clients.length, options.tasks, (i) => execOnce(clients[i]!, command));
    return finish('ssh2 exec channel per command', options, wall, connectMs);
  } finally {
    for (const c of clients) c.end();
  }
}

/** A bare persistent shell: a command, then a marker line with its status. */
class BareShell {
  private buffer = '';
  private waiter: (() => void) | undefined;
  constructor(private readonly channel: ClientChannel) {
    channel.on('data', (d: Buffer) => {
      this.buffer += d.toString('latin1');
      if (this.buffer.includes('\n__KMXBENCH ')) this.waiter?.();
    });
    channel.stderr.resume();
  }
  run(command: string): Promise<void> {
    return new Promise((resolve) => {
      this.waiter = () => {
        this.buffer = '';
        this.waiter = undefined;
        resolve();
      };
      this.channel.write(`${command}\nprintf '\\n__KMXBENCH %s\\n' $?\n`);
    });
  }
}

/** Persistent shells on every host, open: `run` times `tasks` lockstep commands on them. */
export interface OpenShells {
  connectMs: number;
  /** Wall time of `tasks` x the command on every host, task by task. */
  run(tasks: number): Promise<number>;
  close(): void;
}

/** Opens one persistent /bin/sh per host (the floor's connections and shells). */
export async function openPersistentShells(options: FloorOptions): Promise<OpenShells> {
  const command = options.command ?? '/bin/true';
  const t0 = performance.now();
  const clients = await Promise.all(options.hosts.map((h) => openRaw(h, options)));
  try {
    const shells = await Promise.all(
      clients.map(
        (c) =>
          new Promise<BareShell>((resolve, reject) =>
            c.exec('exec /bin/sh', (error, channel) =>
              error ? reject(error) : resolve(new BareShell(channel)),
            ),
          ),
      ),
    );
    return {
      connectMs: performance.now() - t0,
      run: (tasks) => lockstep(shells.length, tasks, (i) => shells[i]!.run(command)),
      close: () => {
        for (const c of clients) c.end();
      },
    };
  } catch (error) {
    for (const c of clients) c.end();
    throw error;
  }
}

/** (b) One persistent /bin/sh per host, commands fed over its stdin, minimal framing. */
export async function persistentShellFloor(options: FloorOptions): Promise<FloorResult> {
  const shells = await openPersistentShells(options);
  try {
    const wall = await shells.run(options.tasks);
    return finish('ssh2 persistent shell per host', options, wall, shells.connectMs);
  } finally {
    shells.close();
  }
}

/** (c) kubemix's SshTransport: connect every host, then the same lockstep commands. */
export async function sshTransportBench(options: FloorOptions): Promise<FloorResult> {
  const command = options.command ?? '/bin/true';
  const transports = options.hosts.map(
    (h) =>
      new SshTransport({
        host: h.name,
        address: h.address,
        port: h.port ?? 22,
        user: h.credentials?.user ?? 'root',
        privateKey: { file: options.privateKeyPath },
        knownHostsFiles: [options.knownHostsPath],
        sshConfigPath: false,
        agent: false,
      }),
  );
  const t0 = performance.now();
  await Promise.all(transports.map((t) => t.connect()));
  const connectMs = performance.now() - t0;
  let failures = 0;
  try {
    const wall = await lockstep(transports.length, options.tasks, async (i) => {
      const result = await transports[i]!.exec({ command });
      if (result.failed) failures++;
    });
    if (failures > 0) throw new Error(`SshTransport benchmark: ${failures} commands failed`);
    return finish('kubemix SshTransport', options, wall, connectMs);
  } finally {
    await Promise.all(transports.map((t) => t.close()));
  }
}

/** Options for {@link ansibleBench}. */
export interface AnsibleBenchOptions {
  /** Ansible YAML inventory (the lab's inventory.yml). */
  inventoryPath: string;
  hostsCount: number;
  tasks: number;
  /** Where the playbook, ansible.cfg and control sockets go. Default: a temp directory. */
  workDir?: string;
  forks?: number;
}

/** Writes a playbook of `tasks` x `command: /bin/true` for group `lab`; returns its path. */
export function writeTruePlaybook(dir: string, tasks: number): string {
  const lines = ['- hosts: lab', '  gather_facts: false', '  tasks:'];
  for (let i = 1; i <= tasks; i++) lines.push(`    - name: true ${i}`, '      command: /bin/true');
  const path = join(dir, 'true-playbook.yml');
  writeFileSync(path, `${lines.join('\n')}\n`);
  return path;
}

/** (d) ansible-playbook on the same hosts: whole command wall time (startup and logins included). */
export async function ansibleBench(
  options: AnsibleBenchOptions,
): Promise<FloorResult & { exitCode: number | null; output: string }> {
  const dir = options.workDir ?? (await makeTempDir('ansible'));
  try {
    const playbook = writeTruePlaybook(dir, options.tasks);
    writeFileSync(
      join(dir, 'ansible.cfg'),
      [
        '[defaults]',
        `forks = ${options.forks ?? 10}`,
        'gathering = explicit',
        'host_key_checking = True',
        'retry_files_enabled = False',
        'interpreter_python = /usr/bin/python3',
        '[ssh_connection]',
        'pipelining = True',
        `ssh_args = -o ControlMaster=auto -o ControlPersist=60s`,
        `control_path_dir = ${join(dir, 'cp')}`,
        '',
      ].join('\n'),
    );
    const started = performance.now();
    const { code, output } = await new Promise<{ code: number | null; output: string }>((resolve, reject) => {
      const child = spawn('ansible-playbook', ['-i', options.inventoryPath, playbook], {
        cwd: dir,
        // The marker finds the ControlPersist masters ssh leaves running, to stop them afterwards.
        env: {
          ...process.env,
          ANSIBLE_CONFIG: join(dir, 'ansible.cfg'),
          ANSIBLE_NOCOLOR: '1',
          KMX_BENCH_ANSIBLE: dir,
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let out = '';
      child.stdout.on('data', (d: Buffer) => {
        out += d.toString();
      });
      child.stderr.on('data', (d: Buffer) => {
        out += d.toString();
      });
      child.on('error', reject);
      child.on('close', (c) => resolve({ code: c, output: out }));
    });
    const wall = performance.now() - started;
    const base = finish(
      'ansible-playbook',
      { hosts: new Array(options.hostsCount), tasks: options.tasks } as FloorOptions,
      wall,
    );
    return { ...base, exitCode: code, output: output.slice(-4000) };
  } finally {
    killAll(processesWithEnv('KMX_BENCH_ANSIBLE', dir));
    if (!options.workDir) await rm(dir, { recursive: true, force: true });
  }
}
