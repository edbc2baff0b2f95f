import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { pinnedScriptUrls } from '../../fixtures/windows-sim/cluster-commands-support.js';
import { createTransport } from '../../src/executor/create-transport.js';
import { winFileModule, winFileScript } from '../../src/modules/windows/win-file.js';
import { winGetUrlModule, winGetUrlScript } from '../../src/modules/windows/win-get-url.js';
import type { InventoryHost } from '../../src/types/inventory.js';
import { loadVersions } from '../../src/versions/versions.js';
import { testTempDir } from '../helpers/temp.js';
import { initialisedState } from '../lab/helpers.js';

// windows-sim/main.js with --cluster-state: a separate process whose hosts answer the cluster
// build against a lab cluster state directory, with failures injected through a file.
const MAIN = fileURLToPath(new URL('../../dist/fixtures/windows-sim/main.js', import.meta.url));
let child: ChildProcess | undefined;

afterEach(async () => {
  if (child && child.exitCode === null) {
    child.kill('SIGKILL');
    await once(child, 'exit');
  }
  child = undefined;
});

describe('windows-sim main.js --cluster-state', () => {
  it('answers the cluster commands and takes injected failures from the file', async () => {
    const { state } = await initialisedState();
    const failures = join(await testTempDir('lab-test'), 'failures.json');
    await writeFile(failures, JSON.stringify({ 'Install-Containerd.ps1': 1 }));
    const proc = spawn(
      process.execPath,
      [MAIN, '--host', 'win-c', '--json', '--cluster-state', state.dir, '--failures-file', failures],
      { env: { ...process.env, KUBEMIX_WINSIM_PASSWORD: 'S3cret!' }, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    child = proc;
    const line = await new Promise<string>((resolve, reject) => {
      let out = '';
      proc.stdout.on('data', (d: Buffer) => {
        out += d.toString();
        if (out.includes('\n')) resolve(out.slice(0, out.indexOf('\n')));
      });
      proc.on('exit', (code) => reject(new Error(`main.js exited with ${code}`)));
    });
    const [host] = (JSON.parse(line) as { hosts: InventoryHost[] }).hosts;
    process.env['KUBEMIX_WINSIM_PASSWORD'] = 'S3cret!';
    const transport = createTransport(host!);
    await transport.connect();
    try {
      // cleanup-windows on a host that never got kubeadm: nothing to reset.
      const none = await transport.exec({
        command:
          "if (Test-Path C:/k/kubeadm.exe) { & C:/k/kubeadm.exe reset -f } else { Write-Output 'kubeadm is not installed: nothing to reset' }",
      });
      expect(none).toMatchObject({ exitCode: 0, stdout: 'kubeadm is not installed: nothing to reset\r\n' });
      // The pinned script download is served in that process, and the injected failure comes first.
      const [script] = pinnedScriptUrls(loadVersions());
      const dir = await transport.exec({
        command: winFileScript(winFileModule.parseArgs({ path: 'C:/k', state: 'directory' }), false),
      });
      expect(dir.exitCode).toBe(0);
      const got = await transport.exec({
        command: winGetUrlScript(
          winGetUrlModule.parseArgs({ url: script!.url, dest: 'C:/k/Install-Containerd.ps1' }),
          false,
        ),
      });
      expect(got.exitCode).toBe(0);
      const install = '& C:/k/Install-Containerd.ps1 -ContainerDVersion 1.7.22 -skipHypervisorSupportCheck';
      const failed = await transport.exec({ command: install });
      expect(failed.exitCode).toBe(1);
      expect(failed.stderr).toContain(
        'failure injected by the kubemix lab: Install-Containerd.ps1 fails on win-c',
      );
      const first = await transport.exec({ command: install });
      expect(first).toMatchObject({ exitCode: 0 });
      expect(first.stdout).toContain('Please reboot and re-run this script.');
    } finally {
      await transport.close();
    }
    expect(JSON.parse(await readFile(failures, 'utf8'))).toEqual({ 'Install-Containerd.ps1': 0 });
    proc.kill('SIGTERM');
    const [code] = await once(proc, 'exit');
    expect(code).toBe(0);
  });

  it('refuses --failures-file without --cluster-state before starting anything', async () => {
    const proc = spawn(process.execPath, [MAIN, '--host', 'win-d', '--failures-file', '/tmp/x.json'], {
      env: { ...process.env, KUBEMIX_WINSIM_PASSWORD: 'x' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child = proc;
    let err = '';
    proc.stderr.on('data', (d: Buffer) => {
      err += d.toString();
    });
    const [code] = await once(proc, 'exit');
    expect(code).toBe(2);
    expect(err.trim()).toBe('windows-sim: --failures-file needs --cluster-state');
  });
});
