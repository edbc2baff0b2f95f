import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { SFTPWrapper } from 'ssh2';
import type { ConnectionPool } from './connection-pool.js';
import { type TransferMethod, TransferMethodUnavailable } from './transfer-method.js';

/**
 * Opens the connection's SFTP session; a server without an sftp subsystem (no `Subsystem sftp`
 * line in sshd_config: minimal images, appliances) refuses the subsystem request, which ssh2
 * reports as "Unable to start subsystem: sftp". That, and only that, makes the method unavailable.
 */
async function session(pool: Pick<ConnectionPool, 'sftp'>): Promise<SFTPWrapper> {
  try {
    return await pool.sftp();
  } catch (error) {
    const cause = (error as Error & { cause?: Error }).cause;
    if (cause && /Unable to start subsystem/.test(cause.message))
      throw new TransferMethodUnavailable('the host has no SFTP subsystem', { cause: error });
    throw error;
  }
}

/** File transfer over the connection's SFTP session (one channel, kept open). */
export function sftpMethod(pool: Pick<ConnectionPool, 'sftp'>): TransferMethod {
  return {
    name: 'sftp',
    async upload(remotePath, source) {
      const sftp = await session(pool);
      await pipeline(Readable.from(source), sftp.createWriteStream(remotePath, { mode: 0o600 }));
    },
    async *download(remotePath) {
      const sftp = await session(pool);
      yield* sftp.createReadStream(remotePath) as AsyncIterable<Buffer>;
    },
  };
}
