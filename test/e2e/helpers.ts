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
