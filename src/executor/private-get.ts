import { chmod, mkdtemp, rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { ensurePrivateDir, PRIVATE_FILE_MODE } from '../fs/private-files.js';
import type { GetRequest, Transport } from '../transport/types.js';
import type { CommandResult } from '../types/command-result.js';

/**
 * Fetches a file so that the local copy is owner-only (0600) from its first byte, whatever the
 * umask and whatever the wire: a fetched file is often a credential (admin.conf). The transport
 * writes into a fresh 0700 directory beside the target, where no one else can open it; the file
 * is then made 0600 and renamed into place. Directories created for the target are 0700.
 */
export async function privateGet(transport: Transport, request: GetRequest): Promise<CommandResult> {
  const dir = dirname(request.localPath);
  await ensurePrivateDir(dir);
  const staging = await mkdtemp(join(dir, `.${basename(request.localPath)}.kmx-get-`));
  const staged = join(staging, basename(request.localPath));
  try {
    const result = await transport.get({ ...request, localPath: staged });
    const shown = { ...result, command: result.command.replaceAll(staged, request.localPath) };
    if (result.failed) return { ...shown, stderr: result.stderr.replaceAll(staged, request.localPath) };
    await chmod(staged, PRIVATE_FILE_MODE);
    await rename(staged, request.localPath);
    return shown;
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
}
