import { once } from 'node:events';
import { beforeEach, describe, expect, it } from 'vitest';
import { fileTime } from '../../fixtures/windows-sim/host.js';
import { WindowsSimulator } from '../../fixtures/windows-sim/simulator.js';
import { probeModule } from '../../src/modules/probe.js';
import { winFeatureModule, winFeatureScript } from '../../src/modules/windows/win-feature.js';
import { winFileModule, winFileScript } from '../../src/modules/windows/win-file.js';
import { winGetUrlModule, winGetUrlScript } from '../../src/modules/windows/win-get-url.js';
import { winPathModule, winPathScript } from '../../src/modules/windows/win-path.js';
import { bootTimeScript, parseWinRebootArgs } from '../../src/modules/windows/win-reboot.js';
import { winServiceModule, winServiceScript } from '../../src/modules/windows/win-service.js';
import { winWaitForModule, winWaitForScript } from '../../src/modules/windows/win-wait-for.js';
import { moduleOutcome, runLine, runScript } from './helpers.js';

// The simulator driven with the scripts the real modules generate (header dispatch), without a network.
let sim: WindowsSimulator;
const outcome = moduleOutcome;
const feature = (raw: Record<string, unknown>, check = false) =>
  runScript(sim, 'win1', winFeatureScript(winFeatureModule.parseArgs(raw), check)).then((r) =>
    outcome('win_feature', r),
  );
const service = (raw: Record<string, unknown>, check = false) =>
  runScript(sim, 'win1', winServiceScript(winServiceModule.parseArgs(raw), check)).then((r) =>
    outcome('win_service', r),
  );
const path = (raw: Record<string, unknown>, check = false) =>
  runScript(sim, 'win1', winPathScript(winPathModule.parseArgs(raw), check)).then((r) =>
    outcome('win_path', r),
  );
const file = (raw: Record<string, unknown>, check = false) =>
  runScript(sim, 'win1', winFileScript(winFileModule.parseArgs(raw), check)).then((r) =>
    outcome('win_file', r),
  );

beforeEach(() => {
  sim?.dispose();
  sim = new WindowsSimulator();
  sim.addHost({ name: 'win1', rebootDownMs: 30 });
});

describe('features and reboots', () => {
  it('keeps a feature that needs a restart pending until the host boots again', async () => {
    const host = sim.host('win1');
    expect(await feature({ name: 'Containers' }, true)).toMatchObject({
      changed: true,
      rebootRequired: true,
    });
    expect(host.feature('Containers')?.state).toBe('Available');
    expect(await feature({ name: 'Containers' })).toMatchObject({
      changed: true,
      rebootRequired: true,
      data: { exitcode: 'SuccessRestartRequired' },
    });
    expect(host.feature('Containers')?.state).toBe('InstallPending');
    expect(await feature({ name: 'Containers' })).toMatchObject({ changed: false, rebootRequired: true });
    const boot = host.bootTime.getTime();
    const events: string[] = [];
    host.on('power', (state) => events.push(state));
    host.scheduleReboot(0);
    await new Promise<void>((resolve) => {
      const onPower = (state: string) => {
        if (state !== 'up') return;
        host.off('power', onPower);
        resolve();
      };
      host.on('power', onPower);
    });
    expect(events).toEqual(['down', 'up']);
    expect(host.bootTime.getTime()).toBeGreaterThan(boot);
    expect(host.feature('Containers')?.state).toBe('Installed');
    expect(host.service('hns')?.state).toBe('running');
    const after = await feature({ name: 'Containers' });
    expect(after.changed).toBe(false);
    expect(after.rebootRequired).toBeUndefined();
  });

  it('adds management tools on request, installs features without a restart at once, and names unknown features', async () => {
    const host = sim.host('win1');
    expect(await feature({ name: 'Hyper-V', include_management_tools: true })).toMatchObject({
      changed: true,
      rebootRequired: true,
    });
    expect(host.feature('Hyper-V-PowerShell')?.state).toBe('Installed');
    expect(host.feature('Hyper-V')?.state).toBe('InstallPending');
    expect(await feature({ name: 'Web-Server' })).toMatchObject({
      changed: true,
      data: { reboot_required: false, exitcode: 'Success' },
    });
    const bad = await feature({ name: ['Containers', 'Nope'] });
    expect(bad).toMatchObject({ failed: true });
    expect(bad.msg).toContain("feature name is not valid: 'Nope'");
    expect(host.feature('Containers')?.state).toBe('Available');
  });

  it('prints the boot time as a FILETIME, and a host that never comes back stays down', async () => {
    const host = sim.host('win1');
    const ran = await runScript(sim, 'win1', bootTimeScript(parseWinRebootArgs({})));
    expect(ran.stdout).toBe(`${fileTime(host.bootTime)}\r\n`);
    host.controls.rebootDownMs = Number.POSITIVE_INFINITY;
    const wentDown = once(host, 'power');
    host.scheduleReboot(0);
    expect(await wentDown).toEqual(['down']);
    expect(host.power).toBe('down');
    const refused = await runLine(sim, 'win1', 'hostname');
    expect(refused).toMatchObject({ code: 1, stderr: 'win1 is restarting\r\n' });
  });
});

describe('services', () => {
  it('creates a service from a path, and starts it only once its binary exists', async () => {
    const host = sim.host('win1');
    const missing = await service({ name: 'containerd', state: 'started' });
    expect(missing.msg).toBe(
      "win_service: Service 'containerd' is not installed, need to set 'path' to create a new service",
    );
    const noBinary = await service({
      name: 'containerd',
      path: '"C:\\Program Files\\containerd\\containerd.exe" --run-service',
      state: 'started',
    });
    expect(noBinary.failed).toBe(true);
    expect(noBinary.msg).toContain('The system cannot find the file specified');
    host.fs.write('C:\\Program Files\\containerd\\containerd.exe', 'MZ');
    expect(await service({ name: 'containerd', state: 'started', start_mode: 'delayed' })).toMatchObject({
      changed: true,
      data: {
        state: 'running',
        start_mode: 'delayed',
        path: '"C:\\Program Files\\containerd\\containerd.exe" --run-service',
      },
    });
    expect(await service({ name: 'containerd', state: 'started', start_mode: 'delayed' })).toMatchObject({
      changed: false,
    });
    expect(await service({ name: 'containerd', state: 'stopped' }, true)).toMatchObject({ changed: true });
    expect(host.service('containerd')?.state).toBe('running');
    expect(await service({ name: 'containerd', state: 'absent' })).toMatchObject({ changed: true });
    expect(host.service('containerd')).toBeUndefined();
  });

  it('starts dependencies first and refuses disabled services', async () => {
    const host = sim.host('win1');
    host.fs.write('C:\\k\\kubelet.exe', 'MZ');
    host.service('W32Time')!.state = 'stopped';
    expect(
      await service({
        name: 'kubelet',
        path: 'C:\\k\\kubelet.exe',
        dependencies: ['W32Time'],
        state: 'started',
      }),
    ).toMatchObject({ changed: true, data: { state: 'running' } });
    expect(host.service('W32Time')?.state).toBe('running');
    const disabled = await service({ name: 'kubelet', start_mode: 'disabled', state: 'restarted' });
    expect(disabled.msg).toContain('disabled');
  });
});

describe('PATH, files and downloads', () => {
  it('adds PATH entries once (case and trailing backslash ignored) and removes them', async () => {
    const host = sim.host('win1');
    expect(await path({ elements: ['C:\\k', 'C:\\opt\\cni\\bin'] })).toMatchObject({ changed: true });
    expect(await path({ elements: ['c:\\K\\', '%SystemRoot%\\system32'] })).toMatchObject({ changed: false });
    expect(host.processPath().split(';')).toContain('C:\\k');
    expect(await path({ elements: 'C:\\k', state: 'absent' })).toMatchObject({ changed: true });
    expect(host.env.machine.get('Path')?.split(';').at(-1)).toBe('C:\\opt\\cni\\bin');
    expect(await path({ elements: 'C:\\tools', scope: 'user' })).toMatchObject({ changed: true });
    expect(host.env.user.get('Path')).toContain('C:\\tools');
  });

  it('makes directories, touches, refuses to create files, removes trees', async () => {
    const host = sim.host('win1');
    expect(await file({ path: 'C:\\k\\logs\\today', state: 'directory' })).toMatchObject({ changed: true });
    expect(host.fs.isDirectory('c:/K/logs')).toBe(true);
    expect(await file({ path: 'C:\\k\\logs\\today', state: 'directory' })).toMatchObject({ changed: false });
    expect((await file({ path: 'C:\\k\\missing.txt', state: 'file' })).msg).toBe(
      'win_file: path C:\\k\\missing.txt will not be created',
    );
    expect(await file({ path: 'C:\\k\\logs\\a.log', state: 'touch' })).toMatchObject({ changed: true });
    expect(await file({ path: 'C:\\k\\logs', state: 'absent' }, true)).toMatchObject({ changed: true });
    expect(host.fs.isFile('C:\\k\\logs\\a.log')).toBe(true);
    expect(await file({ path: 'C:\\k\\logs', state: 'absent' })).toMatchObject({ changed: true });
    expect(host.fs.exists('C:\\k\\logs\\a.log')).toBe(false);
  });

  it('downloads only from loopback and waits only on loopback', async () => {
    sim.host('win1').fs.mkdir('C:\\k');
    const args = winGetUrlModule.parseArgs({ url: 'http://192.0.2.1/x.zip', dest: 'C:\\k\\x.zip' });
    const far = outcome('win_get_url', await runScript(sim, 'win1', winGetUrlScript(args, false)));
    expect(far.msg).toContain('not simulated: downloads from hosts other than loopback');
    const wait = winWaitForModule.parseArgs({ host: '192.0.2.1', port: 22, timeout: 1 });
    const waited = outcome('win_wait_for', await runScript(sim, 'win1', winWaitForScript(wait)));
    expect(waited.msg).toContain('not simulated: waiting for 192.0.2.1:22');
  });
});

describe('command table', () => {
  it('answers the documented commands, and anything else with "not simulated"', async () => {
    sim.host('win1').fs.write('C:\\k\\x.txt', 'hi');
    expect((await runScript(sim, 'win1', 'hostname')).stdout).toBe('win1\r\n');
    expect((await runScript(sim, 'win1', '[Environment]::OSVersion.Version.ToString()')).stdout).toBe(
      '10.0.20348.0\r\n',
    );
    expect((await runScript(sim, 'win1', "Test-Path -LiteralPath 'C:\\k\\x.txt'")).stdout).toBe('True\r\n');
    expect((await runScript(sim, 'win1', 'Get-Service sshd')).stdout).toContain('Running  sshd');
    expect(await runScript(sim, 'win1', 'Get-Service nope')).toMatchObject({ code: 1 });
    expect(await runScript(sim, 'win1', 'kubeadm join 10.0.0.1:6443')).toMatchObject({
      code: 1,
      stderr: 'not simulated: kubeadm join 10.0.0.1:6443\r\n',
    });
    // cmd.exe lines (WinRM execRaw) use the same table.
    expect((await runLine(sim, 'win1', 'cmd /c whoami')).stdout).toBe('win1\\administrator\r\n');
  });

  it('answers the probe module', async () => {
    const run = probeModule.run(
      {},
      {
        host: { name: 'win1', address: 'x', os: 'windows', connection: 'winrm', role: 'worker', group: 'w' },
        os: 'windows',
        vars: {},
        checkMode: false,
      },
    );
    const action = run.next().value as { command: string };
    expect((await runScript(sim, 'win1', action.command)).stdout).toBe('Windows 10.0.20348.0\r\n');
  });

  it('lets callers register commands (the kubeadm extension point), newest first', async () => {
    const remove = sim.registerCommand(/^kubeadm version$/, ({ stdout }) => {
      stdout('kubeadm version: v1.31.0\r\n');
      return 0;
    });
    expect(await runScript(sim, 'win1', 'kubeadm version')).toMatchObject({
      code: 0,
      stdout: 'kubeadm version: v1.31.0\r\n',
    });
    remove();
    expect((await runScript(sim, 'win1', 'kubeadm version')).code).toBe(1);
  });
});

describe('simulated file system', () => {
  it('normalises Windows paths, case-insensitively', () => {
    const fs = sim.host('win1').fs;
    expect(fs.normalize('c:/k//x\\..\\y.txt')).toBe('C:\\k\\y.txt');
    expect(fs.normalize('relative.txt')).toBe('C:\\Users\\Administrator\\relative.txt');
    fs.write('C:\\A\\B.txt', 'x');
    expect(fs.read('c:\\a\\b.TXT')?.toString()).toBe('x');
    expect(fs.isDirectory('C:\\a')).toBe(true);
    expect(() => fs.write('C:\\a', 'y')).toThrow('denied');
  });
});
