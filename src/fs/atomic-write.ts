import { open, rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

let counter = 0;

/**
 * Writes a file so readers see either the old or the new content, never a torn one, even when
 * the process is killed mid-write: write a temp file in the same directory, fsync, rename over
 * the target, then fsync the directory so the rename itself survives a crash.
 */
export async function writeFileAtomic(path: string, content: string, mode = 0o644): Promise<void> {
  counter += 1;
  const temp = join(dirname(path), `.${basename(path)}.${process.pid}.${counter}.tmp`);
  try {
    const handle = await open(temp, 'w', mode);
    try {
      await handle.writeFile(content, 'utf8');
      // The umask may have removed bits; a secrets file must end up exactly 0600.
      await handle.chmod(mode);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temp, path);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
  await syncDirectory(dirname(path));
}

async function syncDirectory(dir: string): Promise<void> {
  try {
    const handle = await open(dir, 'r');
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  } catch {
    // Some filesystems refuse fsync on a directory; the rename is still atomic there.
  }
}
