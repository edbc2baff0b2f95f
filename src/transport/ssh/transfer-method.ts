import type { CommandResult } from '../../types/command-result.js';

/** Runs a shell command on the host (the transport's exec), optionally with stdin. */
export type RunRemote = (command: string, stdin?: Buffer) => Promise<CommandResult>;

/** The ways to move a file over SSH, in the order Ansible's `smart` transfer tries them. */
export type TransferMethodName = 'sftp' | 'scp' | 'pipe';

/**
 * One way of moving a file's bytes to or from a host. Checksums, temporary files, modes and
 * renames are the caller's (verified-transfer.ts); a method only carries bytes.
 */
export interface TransferMethod {
  readonly name: TransferMethodName;
  /**
   * Writes `size` bytes from `source` to a new file at `remotePath`, created 0600. Throws
   * TransferMethodUnavailable (before writing anything) when the host does not offer the method.
   */
  upload(remotePath: string, source: AsyncIterable<Buffer>, size: number): Promise<void>;
  /**
   * The bytes of the file at `remotePath`. The iteration throws TransferMethodUnavailable before
   * its first chunk when the host does not offer the method.
   */
  download(remotePath: string): AsyncIterable<Buffer>;
}

/** The host does not offer this method (no SFTP subsystem, no scp program): the next one may work. */
export class TransferMethodUnavailable extends Error {}

/** The first line of a command's error output, or its exit code when it printed nothing. */
export function failureText(result: CommandResult): string {
  return result.stderr.trim().split('\n')[0] || `exit ${result.exitCode}`;
}
