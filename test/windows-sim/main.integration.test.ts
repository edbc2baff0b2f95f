import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { createTransport } from '../../src/executor/create-transport.js';
import type { InventoryHost } from '../../src/types/inventory.js';

// The standalone entry a demo script uses: simulated Windows hosts as a process.
const MAIN = fileURLToPath(new URL('../../dist/fixtures/windows-sim/main.js', import.meta.url));
let child: ChildProcess | undefined;

afterEach(async () => {
  if (child && child.exitCode === null) {
    child.kill('SIGKILL');
    await once(child, 'exit');
  }
  child = undefined;
});

function start(args: string[], env: Record<string, string>): Promise<{ line: string; child: ChildProcess }> {
  const proc = spawn(process.execPath, [MAIN, ...args], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child = proc;
  return new Promise((resolve, reject) => {
    let out = '';
    let err = '';
    proc.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const newline = out.indexOf('\n');
      if (newline >= 0) resolve({ line: out.slice(0, newline), child: proc });
    });
    proc.stderr!.on('data', (d: Buffer) => {
      err += d.toString();
    });
    proc.on('exit', (code) => reject(new Error(`main.js exited with ${code}: ${err.trim()}`)));
  });
}

describe('windows-sim main.js', () => {
  it('serves simulated hosts over WinRM and SSH until it is stopped', async () => {
    const { line, child: proc } = await start(['--host', 'win-a:2019', '--ssh', '--json'], {
      KUBEMIX_WINSIM_PASSWORD: 'S3cret!',
    });
    const { hosts, sshHosts } = JSON.parse(line) as { hosts: InventoryHost[]; sshHosts: InventoryHost[] };
    expect(hosts[0]).toMatchObject({
      name: 'win-a',
      connection: 'winrm',
      windowsVersion: '2019',
      credentials: { password: { env: 'KUBEMIX_WINSIM_PASSWORD' } },
    });
    expect(line).not.toContain('S3cret!');
    // This process must know the password the same way (by the referenced variable).
    process.env['KUBEMIX_WINSIM_PASSWORD'] = 'S3cret!';
    for (const host of [hosts[0]!, sshHosts[0]!]) {
      const transport = createTransport(host);
      await transport.connect();
      const result = await transport.exec({ command: '[Environment]::OSVersion.Version.ToString()' });
      await transport.close();
      expect(result).toMatchObject({ exitCode: 0, stdout: '10.0.17763.0\r\n' });
    }
    proc.kill('SIGTERM');
    const [code] = await once(proc, 'exit');
    expect(code).toBe(0);
  });

  it('refuses to start without the password variable, naming it', async () => {
    const env = { ...process.env };
    delete env['KUBEMIX_WINSIM_PASSWORD'];
    const proc = spawn(
      process.execPath,
      [MAIN, '--host', 'win-b', '--password-env', 'KMX_UNSET_VAR_FOR_TEST'],
      { env, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    child = proc;
    let err = '';
    proc.stderr.on('data', (d: Buffer) => {
      err += d.toString();
    });
    const [code] = await once(proc, 'exit');
    expect(code).toBe(2);
    expect(err.trim()).toBe(
      'windows-sim: --password-env: environment variable KMX_UNSET_VAR_FOR_TEST is not set',
    );
  });
});
