import { existsSync, statSync } from 'node:fs';
import { open, readFile, realpath, rm } from 'node:fs/promises';
import { homedir } from 'node:os';
import { delimiter, dirname, join, resolve } from 'node:path';
import { parseDocument, stringify } from 'yaml';
import { KubemixError } from '../errors/index.js';
import { writeFileAtomic } from '../fs/atomic-write.js';
import { ensurePrivateDir, PRIVATE_FILE_MODE } from '../fs/private-files.js';
import {
  asKubeconfig,
  clusterKubeconfig,
  type Kubeconfig,
  kubeconfigKey,
  mergeKubeconfig,
  removeClusterEntries,
} from './merge.js';

/**
 * The file kubectl would write a new context to (kind's pathForMerge in
 * sigs.k8s.io/kind pkg/cluster/internal/kubeconfig/internal/kubeconfig/paths.go, from kubectl's
 * rules): with $KUBECONFIG set, its only file, else the first of its files that exists, else the
 * last one; without it, ~/.kube/config.
 */
export function kubeconfigPathForMerge(env: NodeJS.ProcessEnv = process.env, home = homedir()): string {
  const listed = [...new Set((env['KUBECONFIG'] ?? '').split(delimiter).filter((p) => p !== ''))];
  if (listed.length === 0) return join(home, '.kube', 'config');
  if (listed.length === 1) return resolve(listed[0]!);
  const existing = listed.find((p) => existsSync(p) && !statSync(p).isDirectory());
  return resolve(existing ?? listed.at(-1)!);
}

/** What {@link mergeIntoKubeconfig} did. */
export interface MergeResult {
  /** The kubeconfig file written. */
  path: string;
  /** The cluster, user and context name, now the current context. */
  context: string;
}

/**
 * Merges a cluster's admin kubeconfig into the user's kubeconfig (see mergeKubeconfig) and makes
 * it the current context. The file is locked like kubectl and kind lock it (`<file>.lock`,
 * created exclusively), written atomically through symlinks, and left 0600; a directory created
 * for it is 0700. Errors name files, never their contents (they hold credentials).
 */
export async function mergeIntoKubeconfig(options: {
  adminConfPath: string;
  clusterName: string;
  target?: string;
}): Promise<MergeResult> {
  const target = options.target ?? kubeconfigPathForMerge();
  const addition = clusterKubeconfig(
    await readKubeconfig(options.adminConfPath),
    options.clusterName,
    options.adminConfPath,
  );
  if (existsSync(target) && statSync(target).isDirectory())
    throw new KubemixError(`${target} is a directory, not a kubeconfig file`, { exitCode: 2 });
  if (existsSync(target) && (await realpath(target)) === (await realpath(options.adminConfPath)))
    throw new KubemixError(
      `${target} is the cluster's own admin.conf (KUBECONFIG points at it); unset KUBECONFIG to merge into ~/.kube/config`,
      { exitCode: 2 },
    );
  await ensurePrivateDir(dirname(target));
  await withFileLock(target, async () => {
    const existing = existsSync(target) ? await readKubeconfig(target) : {};
    const merged = mergeKubeconfig(asKubeconfig(existing, target), addition);
    const path = existsSync(target) ? await realpath(target) : target;
    await writeFileAtomic(path, stringify(merged), PRIVATE_FILE_MODE);
  });
  return { path: target, context: kubeconfigKey(options.clusterName) };
}

/**
 * Removes the cluster's kubemix-<name> cluster, user and context from a kubeconfig file (see
 * removeClusterEntries), under the same lock as a merge. A file that is gone, or holds none of
 * them, is left as it is. Returns whether the file was changed.
 */
export async function removeFromKubeconfig(options: {
  target: string;
  clusterName: string;
}): Promise<boolean> {
  const { target } = options;
  if (!existsSync(target) || statSync(target).isDirectory()) return false;
  return withFileLock(target, async () => {
    const kept = removeClusterEntries(
      asKubeconfig(await readKubeconfig(target), target),
      options.clusterName,
    );
    if (!kept) return false;
    await writeFileAtomic(await realpath(target), stringify(kept), PRIVATE_FILE_MODE);
    return true;
  });
}

/** Runs `work` holding `<file>.lock` (created exclusively), as kubectl and kind lock a kubeconfig. */
async function withFileLock<T>(target: string, work: () => Promise<T>): Promise<T> {
  const lock = `${target}.lock`;
  try {
    await (await open(lock, 'wx', PRIVATE_FILE_MODE)).close();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    throw new KubemixError(
      `${target} is locked by another program (${lock} exists); try again, or remove the lock if no kubectl is running`,
    );
  }
  try {
    return await work();
  } finally {
    await rm(lock, { force: true });
  }
}

/** Parses a kubeconfig file; a syntax error names the file and position, never the text. */
async function readKubeconfig(path: string): Promise<Kubeconfig> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new KubemixError(`cannot read ${path}: ${(error as NodeJS.ErrnoException).code ?? 'error'}`, {
      exitCode: 2,
    });
  }
  const document = parseDocument(text);
  const problem = document.errors[0];
  if (problem) {
    const at = problem.linePos?.[0];
    throw new KubemixError(`${path}${at ? `:${at.line}:${at.col}` : ''}: not valid YAML`, { exitCode: 2 });
  }
  return asKubeconfig(document.toJS(), path);
}
