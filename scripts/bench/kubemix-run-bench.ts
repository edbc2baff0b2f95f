import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { kubemixCli } from '../lab/kubemix-cli.js';
import { makeTempDir } from '../lab/temp-dir.js';
import { writeTruePlaybook } from './ssh-floors.js';

/** Wall time and peak RSS of one whole `kubemix run` command (startup, logins and all). */
export interface CommandMeasure {
  name: string;
  wallMs: number;
  peakRssMb: number;
  /** Most file descriptors the command held open at once (sampled every 20 ms). */
  peakFds: number;
  exitCode: number | null;
  perTaskHostMs: number;
  /** CPU the command itself used (user + system), as GNU time reports it. */
  cpuMs: number;
}

/** Open file descriptors of the process `pid`'s children (the command /usr/bin/time runs). */
function childFds(pid: number): number {
  let count = 0;
  for (const task of safeList(`/proc/${pid}/task`))
    for (const child of readText(`/proc/${pid}/task/${task}/children`).split(' ').filter(Boolean))
      count += safeList(`/proc/${child}/fd`).length;
  return count;
}

const safeList = (dir: string) => {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
};
const readText = (path: string) => {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return '';
  }
};

const cliPath = kubemixCli();

/** Runs a command under GNU time and reads its wall time and maximum resident set size. */
export function timeCommand(
  argv: string[],
  env: Record<string, string> = {},
): Promise<{
  wallMs: number;
  peakRssMb: number;
  peakFds: number;
  cpuMs: number;
  exitCode: number | null;
  stderr: string;
}> {
  return new Promise((resolve, reject) => {
    const child = spawn('/usr/bin/time', ['-f', 'KMXTIME %e %M %U %S', ...argv], {
      stdio: ['ignore', 'ignore', 'pipe'],
      env: { ...process.env, CI: 'true', ...env },
    });
    let peakFds = 0;
    const sampler = setInterval(() => {
      if (child.pid !== undefined) peakFds = Math.max(peakFds, childFds(child.pid));
    }, 20);
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
    });
    child.on('error', (error) => {
      clearInterval(sampler);
      reject(error);
    });
    child.on('close', (code) => {
      clearInterval(sampler);
      const match = /KMXTIME ([\d.]+) (\d+) ([\d.]+) ([\d.]+)/.exec(stderr);
      if (!match) return reject(new Error(`no timing from /usr/bin/time: ${stderr.slice(-500)}`));
      resolve({
        wallMs: Number(match[1]) * 1000,
        peakRssMb: Number(match[2]) / 1024,
        peakFds,
        cpuMs: (Number(match[3]) + Number(match[4])) * 1000,
        exitCode: code,
        stderr,
      });
    });
  });
}

/** `kubemix run` of `tasks` x `command: /bin/true` on the lab inventory, whole command. */
export async function kubemixRunBench(options: {
  inventoryPath: string;
  hostsCount: number;
  tasks: number;
  forks: number;
  name?: string;
}): Promise<CommandMeasure> {
  const dir = await makeTempDir('bench-run');
  try {
    const playbook = writeTruePlaybook(dir, options.tasks);
    const measured = await timeCommand([
      'node',
      cliPath,
      'run',
      playbook,
      '-i',
      options.inventoryPath,
      '-f',
      String(options.forks),
      '--log-format',
      'json',
    ]);
    if (measured.exitCode !== 0)
      throw new Error(`kubemix run failed (${measured.exitCode}): ${measured.stderr.slice(-800)}`);
    return {
      name: options.name ?? `kubemix run (forks ${options.forks})`,
      wallMs: measured.wallMs,
      peakRssMb: measured.peakRssMb,
      peakFds: measured.peakFds,
      exitCode: measured.exitCode,
      perTaskHostMs: measured.wallMs / (options.tasks * options.hostsCount),
      cpuMs: measured.cpuMs,
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
