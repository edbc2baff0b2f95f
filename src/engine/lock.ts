import { readFileSync } from 'node:fs';
import { open, readFile, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { ClusterLockedError } from '../errors/index.js';
import { ensurePrivateDir, PRIVATE_FILE_MODE } from '../fs/private-files.js';

/** A held cluster lock; release() is idempotent. */
export interface ClusterLock {
  readonly path: string;
  release(): Promise<void>;
}

/** A lock file younger than this with no pid in it is being written right now, not stale. */
const FRESH_EMPTY_LOCK_MS = 5000;

/** Path of a cluster's lock file. */
export const lockPath = (clusterDir: string) => join(clusterDir, 'lock');

/** True when a process with this pid exists and is not a zombie (EPERM: it exists but is not ours). */
export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
  return !isZombie(pid);
}

/** A killed process nobody reaped yet (PID 1 in containers often does not) holds nothing. */
function isZombie(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.charAt(stat.lastIndexOf(')') + 2) === 'Z';
  } catch {
    return false;
  }
}

/**
 * Takes `<clusterDir>/lock`, created with O_EXCL and holding our pid. When another live process
 * holds it, throws ClusterLockedError; a lock left by a dead process (SIGKILL, power loss) is
 * taken over.
 */
export async function acquireLock(clusterDir: string): Promise<ClusterLock> {
  await ensurePrivateDir(clusterDir, { ours: 'state.json' });
  const path = lockPath(clusterDir);
  for (let attempt = 0; attempt < 3; attempt += 1) {
    try {
      const handle = await open(path, 'wx', PRIVATE_FILE_MODE);
      try {
        await handle.writeFile(`${process.pid}\n`);
      } finally {
        await handle.close();
      }
      return makeLock(path);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const holder = await readHolder(path);
    if (holder === 'gone') continue;
    if (holder === 'fresh') throw new ClusterLockedError(clusterDir, 0);
    if (holder !== 'stale' && isProcessAlive(holder)) throw new ClusterLockedError(clusterDir, holder);
    // The holder is dead: remove its lock and race for it again with O_EXCL.
    await rm(path, { force: true });
  }
  throw new ClusterLockedError(clusterDir, 0);
}

/** The pid in a lock file, or what to make of a lock file without one. */
async function readHolder(path: string): Promise<number | 'stale' | 'fresh' | 'gone'> {
  try {
    const text = await readFile(path, 'utf8');
    const pid = Number.parseInt(text.trim(), 10);
    if (Number.isInteger(pid) && pid > 0) return pid;
    const { mtimeMs } = await stat(path);
    return Date.now() - mtimeMs < FRESH_EMPTY_LOCK_MS ? 'fresh' : 'stale';
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 'gone';
    throw error;
  }
}

function makeLock(path: string): ClusterLock {
  let released = false;
  return {
    path,
    async release() {
      if (released) return;
      released = true;
      // Only remove the lock if it is still ours (another run may have taken over a lock it thought stale).
      const text = await readFile(path, 'utf8').catch(() => '');
      if (Number.parseInt(text.trim(), 10) === process.pid) await rm(path, { force: true });
    },
  };
}
