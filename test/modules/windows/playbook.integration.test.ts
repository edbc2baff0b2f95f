import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { type AddressInfo, createServer as createTcpServer, type Server as TcpServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWindowsLab, type WindowsLab } from '../../../fixtures/windows-sim/lab.js';
import { EXIT } from '../../../src/errors/index.js';
import { createTransport } from '../../../src/executor/create-transport.js';
import type { PlaybookResult } from '../../../src/playbook/index.js';
import { parseInventory, parsePlaybook, runPlaybook } from '../../../src/playbook/index.js';

// The Windows modules through runPlaybook against simulated Windows hosts: one reached over
// WinRM (NTLM with message encryption), one over SSH with PowerShell as the shell. The same
// playbook must give the same results on both.
const PLAYBOOK = fileURLToPath(
  new URL('../../../fixtures/windows-sim/playbooks/windows-modules.yml', import.meta.url),
);
const BINARY = Buffer.from('MZ containerd stand-in\n'.repeat(1000));

let lab: WindowsLab;
let http: Server;
let httpUrl: string;
let listener: TcpServer;
let listenPort: number;

beforeAll(async () => {
  lab = await startWindowsLab({
    hosts: [
      { name: 'win-winrm', rebootDownMs: 800 },
      { name: 'win-ssh', rebootDownMs: 800 },
      { name: 'win-gone' },
    ],
    ssh: true,
  });
  http = createServer((req, res) => {
    if (req.url === '/containerd.exe') res.end(BINARY);
    else {
      res.statusCode = 404;
      res.end('not found');
    }
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  httpUrl = `http://127.0.0.1:${(http.address() as AddressInfo).port}/containerd.exe`;
  // A port to wait for; win_wait_for's probes connect and hang up at once.
  listener = createTcpServer((socket) => {
    socket.on('error', () => undefined);
    socket.end();
  });
  await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
  listenPort = (listener.address() as AddressInfo).port;
});

afterAll(async () => {
  await lab?.stop();
  await new Promise<void>((resolve) => (http ? http.close(() => resolve()) : resolve()));
  await new Promise<void>((resolve) => (listener ? listener.close(() => resolve()) : resolve()));
});

/** An inventory with one host of the lab, over one connection kind. */
function inventoryFor(name: string, connection: 'winrm' | 'ssh') {
  const text = lab.inventoryYaml(connection);
  const inventory = parseInventory(text, `${connection}.yml`);
  inventory.hosts = inventory.hosts.filter((h) => h.name === name);
  const group = inventory.groups['windows'];
  if (group) group.hosts = group.hosts.filter((h) => h === name);
  return inventory;
}

async function play(name: string, connection: 'winrm' | 'ssh'): Promise<PlaybookResult> {
  return runPlaybook({
    playbook: PLAYBOOK,
    inventory: inventoryFor(name, connection),
    extraVars: {
      http_url: httpUrl,
      http_sha256: createHash('sha256').update(BINARY).digest('hex'),
      wait_port: listenPort,
    },
    transports: createTransport,
  });
}

const summary = (result: PlaybookResult) =>
  result.records.map((r) => `${r.task}: ${r.status}${r.ignored ? ' (ignored)' : ''}`);

describe('Windows modules in a playbook', () => {
  const results: Partial<Record<'winrm' | 'ssh', PlaybookResult>> = {};

  for (const [connection, name] of [
    ['winrm', 'win-winrm'],
    ['ssh', 'win-ssh'],
  ] as const) {
    it(`run over ${connection}: feature, reboot, files, download, service, PATH, port, shell`, async () => {
      const host = lab.host(name);
      const bootBefore = host.bootTime.getTime();
      const result = await play(name, connection);
      results[connection] = result;
      expect(lab.errors).toEqual([]);
      const failures = result.records.filter((r) => r.status === 'failed' && !r.ignored);
      expect(failures).toEqual([]);
      expect(result.stats[name]).toMatchObject({ failed: 0, unreachable: 0 });
      // The reboot happened: a new boot time, and the feature that needed it is installed.
      expect(host.bootTime.getTime()).toBeGreaterThan(bootBefore);
      expect(host.bootCount).toBe(2);
      expect(host.feature('Containers')?.state).toBe('Installed');
      expect(host.service('hns')?.state).toBe('running');
      expect(host.fs.read('C:\\k\\conf\\app.conf')?.toString()).toBe('a=1\r\n');
      expect(host.fs.read('C:\\k\\conf\\windows.conf.j2')?.toString()).toBe(`node=${name}\r\nrelease=1\r\n`);
      expect(host.fs.isFile('C:\\k\\ready')).toBe(true);
      expect(host.fs.read('C:\\k\\containerd.exe')?.equals(BINARY)).toBe(true);
      expect(host.service('containerd')).toMatchObject({ state: 'running', startMode: 'auto' });
      expect(host.env.machine.get('Path')?.split(';').slice(-2)).toEqual(['C:\\k', 'C:\\opt\\cni\\bin']);
      // The command the simulator does not know failed clearly (and was ignored).
      const kubeadm = result.records.find((r) => r.task === 'a command the simulator does not know');
      expect(kubeadm).toMatchObject({ status: 'failed', ignored: true });
      expect(kubeadm?.msg).toContain('not simulated: kubeadm version');
    });
  }

  it('gives the same results over WinRM and SSH', () => {
    expect(results.winrm && results.ssh).toBeTruthy();
    expect(summary(results.ssh!)).toEqual(summary(results.winrm!));
    expect(summary(results.winrm!)).toContain('copy the config: changed');
    expect(summary(results.winrm!)).toContain('copy the config again: ok');
  });

  it('fails clearly when the host never comes back from a reboot', async () => {
    const host = lab.host('win-gone');
    host.controls.rebootDownMs = Number.POSITIVE_INFINITY;
    const result = await runPlaybook({
      playbook: parsePlaybook(
        '- hosts: windows\n  tasks:\n    - name: reboot\n      win_reboot:\n        pre_reboot_delay: 0\n        reboot_timeout: 3\n',
        'gone.yml',
      ),
      inventory: inventoryFor('win-gone', 'winrm'),
      transports: createTransport,
    });
    expect(result.exitCode).toBe(EXIT.failed);
    const record = result.records.find((r) => r.task === 'reboot');
    expect(record?.status).toBe('failed');
    expect(record?.msg).toMatch(
      /^win_reboot: timed out after 3 s waiting for the host to come back: .*(ECONNREFUSED|refused)/,
    );
    expect(host.power).toBe('down');
  });
});
