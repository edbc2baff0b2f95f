import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { writeFileAtomic } from '../fs/atomic-write.js';
import { PRIVATE_FILE_MODE } from '../fs/private-files.js';

/**
 * Which kubeconfig files `kubemix kubeconfig --merge` wrote the cluster into, kept in the cluster
 * directory so `kubemix down` removes the entries from those files, and only those: kind looks in
 * the $KUBECONFIG of the shell that deletes; kubemix remembers, so a `down` from another shell
 * (or CI job) still cleans up and never rewrites a file it did not write to.
 */
export const mergeRecordPath = (clusterDir: string) => join(clusterDir, 'kubeconfig-merges.json');

/** The files recorded as merged into (absolute paths); none when nothing was merged. */
export async function mergedKubeconfigs(clusterDir: string): Promise<string[]> {
  try {
    const value: unknown = JSON.parse(await readFile(mergeRecordPath(clusterDir), 'utf8'));
    return Array.isArray(value) ? value.filter((p): p is string => typeof p === 'string') : [];
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
}

/** Adds `file` to the record (once). */
export async function recordMerge(clusterDir: string, file: string): Promise<void> {
  const files = new Set(await mergedKubeconfigs(clusterDir));
  files.add(resolve(file));
  await writeFileAtomic(
    mergeRecordPath(clusterDir),
    `${JSON.stringify([...files], null, 2)}\n`,
    PRIVATE_FILE_MODE,
  );
}
