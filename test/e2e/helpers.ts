import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { testTempDir } from '../helpers/temp.js';

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
const cliPath = join(repoRoot, 'dist/src/cli/main.js');

/** A fresh directory for a cluster's state. */
export const tempClusterDir = () => testTempDir('e2e');

/** Runs the built CLI as a user would (CI=true: plain lines), with extra environment. */
export function kubemix(args: string[], env: Record<string, string> = {}) {
  return execa('node', [cliPath, ...args], { cwd: repoRoot, reject: false, env: { CI: 'true', ...env } });
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
