import { existsSync } from 'node:fs';
import { chmod, mkdir } from 'node:fs/promises';
import { dirname, join, relative, sep } from 'node:path';
import { writeFileAtomic } from './atomic-write.js';

/** Mode of every file kubemix writes into a cluster directory (or fetches from a host). */
export const PRIVATE_FILE_MODE = 0o600;
/** Mode of the cluster directory and every directory kubemix creates for its files. */
export const PRIVATE_DIR_MODE = 0o700;

/**
 * Makes sure `dir` exists; every directory this creates (missing parents included) is 0700
 * whatever the umask. A directory that already existed keeps its mode (kubemix does not take
 * over `--cluster-dir /tmp`), unless `ours` says it already holds kubemix's files.
 */
export async function ensurePrivateDir(dir: string, options: { ours?: string } = {}): Promise<void> {
  const first = await mkdir(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
  if (first !== undefined) {
    // mkdir's mode passes through the umask; an odd umask could leave the owner without access.
    const created = relative(first, dir).split(sep).filter(Boolean);
    let path = first;
    await chmod(path, PRIVATE_DIR_MODE);
    for (const part of created) {
      path = join(path, part);
      await chmod(path, PRIVATE_DIR_MODE);
    }
  } else if (options.ours !== undefined && existsSync(join(dir, options.ours))) {
    // A cluster directory from an older kubemix, made with the default mode.
    await chmod(dir, PRIVATE_DIR_MODE);
  }
}

/** Writes a file atomically, owner-only (0600), in a directory made with {@link ensurePrivateDir}. */
export async function writePrivateFile(path: string, content: string): Promise<void> {
  await ensurePrivateDir(dirname(path));
  await writeFileAtomic(path, content, PRIVATE_FILE_MODE);
}
