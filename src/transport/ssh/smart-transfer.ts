import type { ConnectionPool } from './connection-pool.js';
import { pipeMethod } from './pipe-method.js';
import { scpMethod } from './scp-method.js';
import { sftpMethod } from './sftp-method.js';
import {
  type RunRemote,
  type TransferMethod,
  type TransferMethodName,
  TransferMethodUnavailable,
} from './transfer-method.js';

/**
 * Ansible's `smart` transfer method (ansible-core lib/ansible/plugins/connection/ssh.py,
 * `_file_transport_command`, commit c9ac477e; option `ssh_transfer_method`, default `smart`):
 * SFTP, then scp, then piping the bytes through the shell. Two differences, both deliberate:
 * - only a method the host does not offer (TransferMethodUnavailable: no sftp subsystem, no scp)
 *   hands over to the next; a real failure (a missing directory, a checksum mismatch) fails at
 *   once instead of being tried three times with three messages;
 * - what a connection does not offer is remembered until it is replaced, so later transfers do
 *   not ask for SFTP again (Ansible asks on every transfer).
 */
export class SmartTransfer {
  private pool: ConnectionPool | undefined;
  private unavailable = new Map<TransferMethodName, string>();

  /**
   * Runs `work` with the first method this connection offers. Resolves with its outcome, or
   * throws TransferMethodUnavailable naming why each method was unusable.
   */
  async run<T>(
    pool: ConnectionPool,
    run: RunRemote,
    work: (method: TransferMethod) => Promise<T>,
  ): Promise<T> {
    this.forget(pool);
    for (const method of this.methods(pool, run)) {
      try {
        return await work(method);
      } catch (error) {
        if (!(error instanceof TransferMethodUnavailable)) throw error;
        this.unavailable.set(method.name, error.message);
      }
    }
    const why = [...this.unavailable].map(([name, reason]) => `${name}: ${reason}`).join('; ');
    throw new TransferMethodUnavailable(`no way to transfer files to this host (${why})`);
  }

  private methods(pool: ConnectionPool, run: RunRemote): TransferMethod[] {
    const all = [sftpMethod(pool), scpMethod(pool), pipeMethod(run)];
    return all.filter((m) => !this.unavailable.has(m.name));
  }

  /** A new connection (a reconnect) may be to a host that changed: ask again. */
  private forget(pool: ConnectionPool): void {
    if (pool === this.pool) return;
    this.pool = pool;
    this.unavailable.clear();
  }
}
