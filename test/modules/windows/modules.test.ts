import { createHash } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { findModule } from '../../../src/modules/registry.js';
import { parseModuleHeader, RESULT_MARKER, WIN_SKIPPED_MARKER } from '../../../src/modules/windows/script.js';
import { winCommandModule } from '../../../src/modules/windows/win-command.js';
import { winCopyModule } from '../../../src/modules/windows/win-copy.js';
import { winFeatureModule } from '../../../src/modules/windows/win-feature.js';
import { winFileModule } from '../../../src/modules/windows/win-file.js';
import { winGetUrlModule } from '../../../src/modules/windows/win-get-url.js';
import { winPathModule } from '../../../src/modules/windows/win-path.js';
import { winServiceModule } from '../../../src/modules/windows/win-service.js';
import { winShellModule } from '../../../src/modules/windows/win-shell.js';
import { winTemplateModule } from '../../../src/modules/windows/win-template.js';
import { winWaitForModule } from '../../../src/modules/windows/win-wait-for.js';
import { drive, result } from '../drive.js';
import { resultOf, windowsContext } from './helpers.js';

const here = fileURLToPath(new URL('.', import.meta.url));
const ctx = windowsContext({ vars: { playbook_dir: here, inventory_hostname: 'win1', v: '1.2' } });
const check = windowsContext({ checkMode: true, vars: { playbook_dir: here } });
const header = (command: string) => parseModuleHeader(command);
const sha1 = (text: string | Buffer) => createHash('sha1').update(text).digest('hex');

describe('registry', () => {
  it('registers every Windows module for Windows hosts, with the ansible.windows prefix too', () => {
    for (const name of [
      'win_shell',
      'win_command',
      'win_copy',
      'win_template',
      'win_file',
      'win_get_url',
      'win_feature',
      'win_reboot',
      'win_service',
      'win_path',
      'win_wait_for',
    ]) {
      expect(findModule(name)?.os, name).toBe('windows');
      expect(findModule(`ansible.windows.${name}`)?.name).toBe(name);
    }
  });
});

describe('win_shell and win_command', () => {
  it('sends the command under its header, with chdir and stdin on the action', () => {
    const { actions, outcome } = drive(
      winShellModule,
      { cmd: 'Get-Date', chdir: 'C:\\k', stdin: 'in' },
      [result('Monday\r\n')],
      ctx,
    );
    const action = actions[0] as { command: string; cwd?: string; stdin?: string; display?: string };
    expect(header(action.command)).toEqual({ module: 'win_shell', args: { cmd: 'Get-Date' } });
    expect(action.command.split('\n').at(-1)).toBe('Get-Date');
    expect(action).toMatchObject({ cwd: 'C:\\k', stdin: 'in', display: 'Get-Date' });
    expect(outcome).toMatchObject({
      changed: true,
      failed: false,
      data: { rc: 0, stdout: 'Monday', stdout_lines: ['Monday'] },
    });
  });

  it('reports a non-zero exit with the tail of stderr, and a guard match as unchanged', () => {
    const failed = drive(
      winShellModule,
      { cmd: 'kubeadm version' },
      [result('', { exitCode: 1, stderr: 'not simulated: kubeadm version\r\n' })],
      ctx,
    );
    expect(failed.outcome).toMatchObject({
      failed: true,
      msg: 'non-zero return code: not simulated: kubeadm version',
      data: { rc: 1 },
    });
    const skipped = drive(
      winShellModule,
      { cmd: 'x', creates: 'C:\\done' },
      [result(`${WIN_SKIPPED_MARKER}\r\n`)],
      ctx,
    );
    expect(skipped.outcome).toMatchObject({ changed: false, failed: false });
    expect(skipped.execs[0]).toContain("if (Test-Path -LiteralPath 'C:\\done')");
  });

  it('runs another shell with executable (its /c command line)', () => {
    const { execs } = drive(
      winShellModule,
      { cmd: 'echo %PATH% & ver', executable: 'cmd', no_profile: true },
      [result()],
      ctx,
    );
    expect(execs[0]!.split('\n').at(-1)).toBe("& 'cmd' /c 'echo %PATH% & ver'");
    expect(header(execs[0]!)?.args).toEqual({ cmd: 'echo %PATH% & ver', executable: 'cmd' });
  });

  it('runs win_command words literally, from a command line or argv', () => {
    const line = drive(winCommandModule, { cmd: 'C:\\k\\kubelet.exe --v "a b" $x|y' }, [result()], ctx);
    expect(line.execs[0]!.split('\n').at(-1)).toBe("& 'C:\\k\\kubelet.exe' '--v' 'a b' '$x|y'");
    const argv = drive(winCommandModule, { argv: ['icacls', 'C:\\a b', "it's"] }, [result()], ctx);
    expect(argv.execs[0]!.split('\n').at(-1)).toBe("& 'icacls' 'C:\\a b' 'it''s'");
    expect(header(argv.execs[0]!)?.args).toEqual({
      cmd: 'icacls "C:\\a b" it\'s',
      argv: ['icacls', 'C:\\a b', "it's"],
    });
  });

  it('skips in check mode and rejects bad arguments', () => {
    expect(drive(winShellModule, { cmd: 'x' }, [], check).outcome).toMatchObject({
      changed: false,
      data: { skipped: true },
    });
    expect(() => winShellModule.parseArgs({ cmd: '' })).toThrow(
      'win_shell: "cmd" must be a non-empty string',
    );
    expect(() => winShellModule.parseArgs({ cmd: 'x', no_profile: false })).toThrow(
      '"no_profile: false" is not supported',
    );
    expect(() => winCommandModule.parseArgs({ cmd: 'x', executable: 'cmd' })).toThrow(
      'unsupported argument "executable"',
    );
    expect(() => winCommandModule.parseArgs({ cmd: 'x', argv: ['y'] })).toThrow('either "cmd" or "argv"');
  });
});

describe('win_copy and win_template', () => {
  it('probes, then puts the content when the SHA-1 differs', () => {
    const { actions, outcome } = drive(
      winCopyModule,
      { content: 'secret=1\n', dest: 'C:\\etc\\a.conf' },
      [resultOf({ dest: 'C:\\etc\\a.conf', exists: true, checksum: 'old' }), result()],
      ctx,
    );
    const probe = actions[0] as { command: string };
    // The content never enters the script or its header (it may be a secret): only its checksum.
    expect(probe.command).not.toContain('secret=1');
    expect(header(probe.command)?.args).toEqual({
      dest: 'C:\\etc\\a.conf',
      src_name: null,
      checksum: sha1('secret=1\n'),
      _check: false,
    });
    expect(actions[1]).toEqual({
      kind: 'put',
      remotePath: 'C:\\etc\\a.conf',
      content: Buffer.from('secret=1\n'),
    });
    expect(outcome).toMatchObject({
      changed: true,
      failed: false,
      data: { checksum: sha1('secret=1\n'), size: 9 },
    });
  });

  it('is idempotent by hash, honours force: false, and only probes in check mode', () => {
    const same = drive(
      winCopyModule,
      { content: 'x', dest: 'C:\\a' },
      [resultOf({ dest: 'C:\\a', exists: true, checksum: sha1('x') })],
      ctx,
    );
    expect(same.outcome).toMatchObject({ changed: false, failed: false });
    const keep = drive(
      winCopyModule,
      { content: 'x', dest: 'C:\\a', force: false },
      [resultOf({ dest: 'C:\\a', exists: true, checksum: 'other' })],
      ctx,
    );
    expect(keep.outcome.changed).toBe(false);
    const dry = drive(
      winCopyModule,
      { content: 'x', dest: 'C:\\a' },
      [resultOf({ dest: 'C:\\a', exists: false })],
      check,
    );
    expect(dry.actions).toHaveLength(1);
    expect(dry.outcome).toMatchObject({ changed: true, failed: false });
  });

  it('copies a src file into a directory dest under its own name; refuses content into a directory', () => {
    const { actions } = drive(
      winCopyModule,
      { src: 'hello.txt', dest: 'C:\\files\\' },
      [resultOf({ dest: 'C:\\files\\hello.txt', exists: false }), result()],
      ctx,
    );
    expect(header((actions[0] as { command: string }).command)?.args['src_name']).toBe('hello.txt');
    expect(actions[1]).toMatchObject({
      kind: 'put',
      remotePath: 'C:\\files\\hello.txt',
      content: Buffer.from('hello from files\n'),
    });
    const dir = drive(
      winCopyModule,
      { content: 'x', dest: 'C:\\files' },
      [resultOf({ dest: 'C:\\files', is_dir: true })],
      ctx,
    );
    expect(dir.outcome).toMatchObject({
      failed: true,
      msg: 'win_copy: dest C:\\files is a directory; give a file path (or src, whose name is used)',
    });
    const missing = drive(winCopyModule, { src: 'nope.txt', dest: 'C:\\a' }, [], ctx);
    expect(missing.outcome.msg).toMatch(/^win_copy: cannot read .*nope\.txt/);
  });

  it('reports a failed put with the transport message', () => {
    const { outcome } = drive(
      winCopyModule,
      { content: 'x', dest: 'C:\\a' },
      [resultOf({ dest: 'C:\\a' }), result('', { exitCode: 2, stderr: 'SHA-256 mismatch after upload' })],
      ctx,
    );
    expect(outcome).toMatchObject({
      changed: false,
      failed: true,
      msg: 'win_copy: copying to C:\\a failed: SHA-256 mismatch after upload',
    });
  });

  it('renders win_template with the host variables and CRLF line endings', () => {
    const { actions } = drive(
      winTemplateModule,
      { src: 'app.conf.j2', dest: 'C:\\k\\app.conf' },
      [resultOf({ dest: 'C:\\k\\app.conf' }), result()],
      ctx,
    );
    expect((actions[1] as { content: Buffer }).content.toString()).toBe('node=win1\r\nversion=1.2\r\n');
    const lf = drive(
      winTemplateModule,
      { src: 'app.conf.j2', dest: 'C:\\a', newline_sequence: '\\n' },
      [resultOf({ dest: 'C:\\a' }), result()],
      ctx,
    );
    expect((lf.actions[1] as { content: Buffer }).content.toString()).toBe('node=win1\nversion=1.2\n');
  });
});

describe('win_file', () => {
  it('passes path, state and check mode, and reads the outcome from the result line', () => {
    const { execs, outcome } = drive(
      winFileModule,
      { path: 'C:\\k', state: 'directory' },
      [resultOf({ changed: true })],
      check,
    );
    expect(header(execs[0]!)?.args).toEqual({ path: 'C:\\k', state: 'directory', _check: true });
    expect(execs[0]).toContain('$kmCheck = $true');
    expect(outcome).toMatchObject({ changed: true, failed: false });
    const missing = drive(
      winFileModule,
      { dest: 'C:\\nope' },
      [resultOf({ failed: true, msg: 'path C:\\nope will not be created' })],
      ctx,
    );
    expect(missing.outcome).toMatchObject({
      failed: true,
      msg: 'win_file: path C:\\nope will not be created',
    });
    expect(() => winFileModule.parseArgs({ path: 'C:\\a', state: 'link' })).toThrow(
      'win_file: "state" must be one of file, directory, absent, touch',
    );
  });
});

describe('win_get_url', () => {
  it('lets the host download with checksum verification, and reports the digest', () => {
    const { actions, outcome } = drive(
      winGetUrlModule,
      { url: 'http://127.0.0.1:1/a.bin', dest: 'C:\\a.bin', checksum: 'sha256:ABC' },
      [resultOf({ changed: true, checksum_dest: 'abc', status_code: 200 })],
      ctx,
    );
    const action = actions[0] as { command: string; timeoutMs?: number };
    expect(header(action.command)?.args).toMatchObject({
      checksum: 'abc',
      checksum_algorithm: 'sha256',
      force: true,
      timeout: 30,
    });
    expect(action.timeoutMs).toBe(90_000);
    expect(outcome).toMatchObject({ changed: true, data: { checksum_dest: 'abc', status_code: 200 } });
  });

  it('keeps URL credentials out of what people see', () => {
    const { actions } = drive(
      winGetUrlModule,
      { url: 'http://user:pw@127.0.0.1/a', dest: 'C:\\a' },
      [resultOf({})],
      ctx,
    );
    expect((actions[0] as { display: string }).display).toBe('win_get_url: http://***@127.0.0.1/a -> C:\\a');
  });

  it('rejects URLs and checksums it cannot use', () => {
    expect(() => winGetUrlModule.parseArgs({ url: 'file:///etc/passwd', dest: 'C:\\a' })).toThrow(
      'must be an http(s) or ftp URL',
    );
    expect(() => winGetUrlModule.parseArgs({ url: 'http://x/a', dest: 'C:\\a', checksum: 'xyz' })).toThrow(
      'hex digest',
    );
    expect(() =>
      winGetUrlModule.parseArgs({ url: 'http://x/a', dest: 'C:\\a', checksum_algorithm: 'crc' }),
    ).toThrow('"checksum_algorithm" must be one of');
  });
});

describe('win_feature', () => {
  it('installs with Install-WindowsFeature and reports reboot_required without rebooting (restart: false)', () => {
    const { actions, outcome } = drive(
      winFeatureModule,
      { name: 'Containers,Hyper-V', include_management_tools: true },
      [resultOf({ changed: true, reboot_required: true, exitcode: 'SuccessRestartRequired' })],
      ctx,
    );
    expect(actions).toHaveLength(1);
    const script = (actions[0] as { command: string }).command;
    expect(header(script)?.args).toEqual({
      name: ['Containers', 'Hyper-V'],
      state: 'present',
      include_sub_features: false,
      include_management_tools: true,
      _check: false,
    });
    expect(script).toContain('Install-WindowsFeature @kmParams');
    expect(outcome).toMatchObject({
      changed: true,
      failed: false,
      rebootRequired: true,
      data: { reboot_required: true },
    });
  });

  it('reboots the win_reboot way with restart: true', () => {
    const { actions, outcome } = drive(
      winFeatureModule,
      { name: 'Containers', restart: true },
      [
        resultOf({ changed: true, reboot_required: true }),
        result('100\r\n'),
        resultOf({ changed: true }),
        result(),
        result('200\r\n'),
        result('win1\\administrator\r\n'),
      ],
      ctx,
    );
    expect(actions.map((a) => a.kind)).toEqual(['exec', 'exec', 'exec', 'reconnect', 'exec', 'exec']);
    expect(outcome).toMatchObject({
      changed: true,
      failed: false,
      data: { restarted: true, reboot_required: false },
    });
  });

  it('uses -WhatIf in check mode and fails with the module message', () => {
    const dry = drive(
      winFeatureModule,
      { name: 'Containers', restart: true },
      [resultOf({ changed: true, reboot_required: true })],
      check,
    );
    expect(dry.execs[0]).toContain('$kmCheck = $true');
    expect(dry.actions).toHaveLength(1);
    const bad = drive(
      winFeatureModule,
      { name: 'Nope' },
      [resultOf({ failed: true, msg: 'Failed to install Windows features Nope: ArgumentNotValid' })],
      ctx,
    );
    expect(bad.outcome).toMatchObject({
      failed: true,
      msg: 'win_feature: Failed to install Windows features Nope: ArgumentNotValid',
    });
  });
});

describe('win_service', () => {
  it('sends name, state, start mode and path, and returns the service facts', () => {
    const { execs, outcome } = drive(
      winServiceModule,
      { name: 'containerd', state: 'started', start_mode: 'auto', path: 'C:\\bin\\containerd.exe' },
      [resultOf({ changed: true, exists: true, state: 'running', start_mode: 'auto' })],
      ctx,
    );
    expect(header(execs[0]!)?.args).toEqual({
      name: 'containerd',
      state: 'started',
      start_mode: 'auto',
      path: 'C:\\bin\\containerd.exe',
      _check: false,
    });
    expect(outcome).toMatchObject({
      changed: true,
      data: { exists: true, state: 'running', start_mode: 'auto' },
    });
    expect(() => winServiceModule.parseArgs({ name: 'x', start_mode: 'boot' })).toThrow(
      '"start_mode" must be one of auto, delayed, disabled, manual',
    );
    expect(() => winServiceModule.parseArgs({ name: "x'y" })).toThrow('must not contain quotes');
  });
});

describe('win_path', () => {
  it('defaults to the machine PATH, present; keeps elements in order', () => {
    const { execs, outcome } = drive(
      winPathModule,
      { elements: ['C:\\k', 'C:\\opt\\cni\\bin'] },
      [resultOf({ changed: true, path_value: 'C:\\Windows;C:\\k;C:\\opt\\cni\\bin' })],
      ctx,
    );
    expect(header(execs[0]!)?.args).toEqual({
      elements: ['C:\\k', 'C:\\opt\\cni\\bin'],
      name: 'PATH',
      scope: 'machine',
      state: 'present',
      _check: false,
    });
    expect(execs[0]).toContain('HKLM:\\SYSTEM\\CurrentControlSet\\Control\\Session Manager\\Environment');
    expect(outcome.data).toEqual({ path_value: 'C:\\Windows;C:\\k;C:\\opt\\cni\\bin' });
    expect(() => winPathModule.parseArgs({ elements: ['a;b'] })).toThrow('contains ";"');
  });
});

describe('win_wait_for', () => {
  it('waits for a port on the host itself, with an exec timeout beyond the wait', () => {
    const { actions, outcome } = drive(
      winWaitForModule,
      { port: 8080, timeout: 5 },
      [resultOf({ elapsed: 0.2, wait_attempts: 2 })],
      ctx,
    );
    const action = actions[0] as { command: string; timeoutMs: number };
    expect(header(action.command)?.args).toMatchObject({
      host: '127.0.0.1',
      port: 8080,
      state: 'started',
      timeout: 5,
    });
    expect(action.timeoutMs).toBe(40_000);
    expect(outcome).toMatchObject({ changed: false, failed: false, data: { wait_attempts: 2 } });
    const late = drive(
      winWaitForModule,
      { port: 1, timeout: 1 },
      [resultOf({ failed: true, msg: 'timeout while waiting for port 1 on 127.0.0.1 to be started' })],
      ctx,
    );
    expect(late.outcome.msg).toBe(
      'win_wait_for: timeout while waiting for port 1 on 127.0.0.1 to be started',
    );
  });

  it('needs exactly one of port or path', () => {
    expect(() => winWaitForModule.parseArgs({})).toThrow('exactly one of "port" or "path"');
    expect(() => winWaitForModule.parseArgs({ port: 1, path: 'C:\\a' })).toThrow(
      'exactly one of "port" or "path"',
    );
    expect(() => winWaitForModule.parseArgs({ port: 1, state: 'drained' })).toThrow('not supported');
    expect(() => winWaitForModule.parseArgs({ port: 1, regex: 'x' })).toThrow(
      '"regex" works only with "path"',
    );
  });
});

describe('result lines', () => {
  it('use one marker for every module', () => {
    expect(RESULT_MARKER).toBe('__KUBEMIX_RESULT__');
  });
});
