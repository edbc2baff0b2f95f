import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { pollUntil } from '../../scripts/lab/poll.js';
import { kubemix, tempClusterDir } from './helpers.js';

// The standalone lab the demo script uses: `main.js start DIR` in its own process, kubemix
// against DIR/spec.yaml with the password from DIR/lab.env, then `main.js stop DIR`.
const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
const main = join(repoRoot, 'dist/fixtures/cluster-lab/main.js');

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe('the standalone mixed lab (main.js)', () => {
  it('starts, writes spec, env and pid files, serves kubemix, and stops cleanly on `stop DIR`', async () => {
    const dir = await tempClusterDir();
    // No password given: the lab makes one up and hands it over in lab.env.
    const { KUBEMIX_WINSIM_PASSWORD: _given, ...env } = process.env;
    const child = spawn('node', [main, 'start', dir, '--windows-workers', '1'], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env,
    });
    let output = '';
    child.stdout.on('data', (d: Buffer) => {
      output += d.toString();
    });
    child.stderr.on('data', (d: Buffer) => {
      output += d.toString();
    });
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    try {
      const started = await pollUntil(() => child.exitCode !== null || existsSync(join(dir, 'lab.pid')), {
        timeoutMs: 60_000,
      });
      if (!started || !existsSync(join(dir, 'lab.pid'))) throw new Error(`the lab did not start: ${output}`);
      expect(Number(await readFile(join(dir, 'lab.pid'), 'utf8'))).toBe(child.pid);
      expect(output).toContain(`spec:        ${join(dir, 'spec.yaml')}`);
      // Windows hosts listen on their own address on the lab bridge (their inventory and node address).
      expect(output).toMatch(/win-01 +10\.233\.\d+\.200:\d+ +winrm .*node address 10\.233\.\d+\.200\)/);
      const spec = parse(await readFile(join(dir, 'spec.yaml'), 'utf8')) as {
        provider: { hosts: { name: string; group: string }[] };
      };
      expect(spec.provider.hosts.map((h) => [h.name, h.group])).toEqual([
        ['lab-01', 'control-plane'],
        ['lab-02', 'linux'],
        ['win-01', 'windows'],
      ]);
      const envFile = join(dir, 'lab.env');
      expect((await stat(envFile)).mode & 0o777).toBe(0o600);
      const password = /^export KUBEMIX_WINSIM_PASSWORD='([^']+)'$/m.exec(
        await readFile(envFile, 'utf8'),
      )?.[1];
      expect(password).toBeTruthy();
      // kubemix reaches every host with what the lab wrote (the Windows host over WinRM/NTLM).
      const up = await kubemix(
        [
          'up',
          join(dir, 'spec.yaml'),
          '--cluster-dir',
          join(dir, 'cluster'),
          '--stop-after',
          'wait-for-hosts',
        ],
        { KUBEMIX_WINSIM_PASSWORD: password! },
      );
      expect(up.stderr).toBe('');
      expect(up.exitCode).toBe(0);
      expect(up.stdout).toContain('OK    wait-for-hosts win-01: identify host');
      expect(up.stdout).not.toContain(password!);

      const stop = await execa('node', [main, 'stop', dir], { reject: false });
      expect(stop.stderr).toBe('');
      expect(stop.exitCode).toBe(0);
      expect(await exited).toBe(0);
      expect(alive(child.pid!)).toBe(false);
      expect(existsSync(join(dir, 'lab.pid'))).toBe(false);
      const again = await execa('node', [main, 'stop', dir], { reject: false });
      expect(again.exitCode).toBe(2);
      expect(again.stderr).toContain('no lab runs in');
    } finally {
      if (child.exitCode === null) child.kill('SIGTERM');
    }
  });

  it('refuses bad arguments with one line and exit code 2', async () => {
    const bad = await execa('node', [main, 'start', await tempClusterDir(), '--controllers', '2'], {
      reject: false,
    });
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toBe('cluster-lab: --controllers must be 1, 3, 5; got 2');
  });
});
