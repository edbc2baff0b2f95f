import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { kubemixCli } from '../../scripts/lab/kubemix-cli.js';
import { testTempDir } from '../helpers/temp.js';

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
const cliPath = kubemixCli();

/** A fresh directory for a cluster's state. */
export const tempClusterDir = () => testTempDir('e2e');

/** The CLI runs not yet ended: a test that timed out leaves its run going (vitest moves on). */
const running = new Set<Promise<unknown>>();

/**
 * Runs the built CLI as a user would (CI=true: plain lines), with extra environment. With a
 * `signal` (a test's own, aborted when the test times out) the run gets SIGTERM, which kubemix
 * answers like Ctrl-C: it stops its tasks, records the state and releases the cluster lock. It
 * is given a minute for that before SIGKILL, so a timed-out test never leaves a run holding the
 * lock that the file's cleanup (`down`) needs.
 */
export function kubemix(
  args: string[],
  env: Record<string, string> = {},
  options: { signal?: AbortSignal } = {},
) {
  const run = execa('node', [cliPath, ...args], {
    cwd: repoRoot,
    reject: false,
    env: { CI: 'true', ...env },
    ...(options.signal ? { cancelSignal: options.signal, forceKillAfterDelay: 60_000 } : {}),
  });
  const settled = run.then(
    () => undefined,
    () => undefined,
  );
  running.add(settled);
  void settled.then(() => running.delete(settled));
  return run;
}

/**
 * The built CLI run from a shell with the given umask, as `umask 000; kubemix ...` would: a careless
 * machine, where every file and directory kubemix makes must still end up private.
 */
export function kubemixWithUmask(
  umask: string,
  args: string[],
  env: Record<string, string> = {},
  options: { signal?: AbortSignal } = {},
) {
  return execa('sh', ['-c', `umask ${umask} && exec node "$@"`, 'sh', cliPath, ...args], {
    cwd: repoRoot,
    reject: false,
    env: { CI: 'true', ...env },
    // The shell execs node, so the signal reaches kubemix itself (SIGTERM: it stops like Ctrl-C).
    ...(options.signal ? { cancelSignal: options.signal, forceKillAfterDelay: 60_000 } : {}),
  });
}

/**
 * The lines of a run's output that say how long each task took ('DONE  <task> (<time>)', FAIL,
 * and the run's own 'run ...' lines): where an emulated build's minutes went, printed by the
 * real-cluster files (timings stay out of pass/fail tests).
 */
export const taskTimes = (stdout: string) =>
  stdout
    .split('\n')
    .filter((line) => /^(DONE|FAIL) |^run /.test(line))
    .join('\n');

/** Waits until every CLI run started by this file has ended (a file's cleanup calls it first). */
export async function settleKubemixRuns(): Promise<void> {
  await Promise.all(running);
}

/** A command on a Linux lab host over its real sshd (strict host keys, the lab's key); its stdout. */
export async function onLabHost(
  lab: { privateKeyPath: string; knownHostsPath: string },
  host: { address: string; port?: number },
  command: string,
): Promise<string> {
  const run = await execa(
    'ssh',
    [
      '-i',
      lab.privateKeyPath,
      '-o',
      `UserKnownHostsFile=${lab.knownHostsPath}`,
      '-o',
      'StrictHostKeyChecking=yes',
      '-o',
      'BatchMode=yes',
      '-p',
      String(host.port ?? 22),
      `root@${host.address}`,
      command,
    ],
    { reject: false },
  );
  return run.stdout;
}
