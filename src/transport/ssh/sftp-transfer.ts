import { createHash, randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, unlink } from 'node:fs/promises';
import { dirname, posix } from 'node:path';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { SFTPWrapper } from 'ssh2';
import { shQuote } from '../../quote/index.js';
import type { CommandResult } from '../../types/command-result.js';
import type { GetRequest, PutRequest } from '../types.js';

/** Runs a shell command on the host (the transport's exec, minus options). */
export type RunRemote = (command: string) => Promise<CommandResult>;

/** Compares a local SHA-256 (hex) with `sha256sum` output; returns the remote hash or null when unreadable. */
export function remoteChecksum(sha256sumOutput: string): string | null {
  const match = /^\\?([0-9a-f]{64})\s/i.exec(`${sha256sumOutput.trim()} `);
  return match?.[1]?.toLowerCase() ?? null;
}

/** A failed-transfer message when the checksums differ, or undefined when they match. */
export function checksumMismatch(
  local: string,
  remote: string | null,
  remotePath: string,
): string | undefined {
  if (remote === null) return `cannot read the sha256 of ${remotePath} on the host`;
  if (remote !== local)
    return `checksum mismatch for ${remotePath}: local sha256 ${local}, remote sha256 ${remote}`;
  return undefined;
}

function hasher(): { transform: Transform; digest: () => string } {
  const hash = createHash('sha256');
  const transform = new Transform({
    transform(chunk: Buffer, _enc, done) {
      hash.update(chunk);
      done(null, chunk);
    },
  });
  return { transform, digest: () => hash.digest('hex') };
}

/**
 * Uploads to a temporary file beside the target, verifies its sha256 with `sha256sum` on the
 * host, then sets the mode and renames it into place: the target is never half-written, and a
 * mismatch leaves it untouched. Returns an error message, or undefined on success.
 */
export async function sftpPut(
  sftp: SFTPWrapper,
  run: RunRemote,
  request: PutRequest,
): Promise<string | undefined> {
  const target = request.remotePath;
  const dir = posix.dirname(target);
  const temp = `${dir}/.${posix.basename(target)}.kmx-${randomBytes(6).toString('hex')}.tmp`;
  const mkdirResult = await run(`mkdir -p -- ${shQuote(dir)}`);
  if (mkdirResult.failed)
    return `cannot create ${dir}: ${mkdirResult.stderr.trim() || `exit ${mkdirResult.exitCode}`}`;
  const { transform, digest } = hasher();
  const source =
    request.localPath !== undefined
      ? createReadStream(request.localPath)
      : Readable.from([Buffer.from(request.content ?? '')]);
  try {
    await pipeline(source, transform, sftp.createWriteStream(temp, { mode: 0o600 }));
  } catch (error) {
    await run(`rm -f -- ${shQuote(temp)}`);
    return `upload to ${target} failed: ${(error as Error).message}`;
  }
  const local = digest();
  const sum = await run(`sha256sum -- ${shQuote(temp)}`);
  const problem = sum.failed
    ? `cannot checksum ${target} on the host: ${sum.stderr.trim()}`
    : checksumMismatch(local, remoteChecksum(sum.stdout), target);
  if (problem) {
    await run(`rm -f -- ${shQuote(temp)}`);
    return problem;
  }
  const q = shQuote(temp);
  const mode =
    request.mode !== undefined
      ? `chmod ${request.mode.toString(8)} -- ${q}`
      : // No mode given: keep the mode of the file being replaced, else the usual 0644.
        `{ chmod --reference=${shQuote(target)} -- ${q} 2>/dev/null || chmod 644 -- ${q}; }`;
  const place = await run(`${mode} && mv -f -- ${q} ${shQuote(target)}`);
  if (place.failed) {
    await run(`rm -f -- ${q}`);
    return `cannot move the upload into place at ${target}: ${place.stderr.trim() || `exit ${place.exitCode}`}`;
  }
  return undefined;
}

/** Downloads into a local path, then verifies it against `sha256sum` on the host; a mismatch removes the local copy. */
export async function sftpGet(
  sftp: SFTPWrapper,
  run: RunRemote,
  request: GetRequest,
): Promise<string | undefined> {
  await mkdir(dirname(request.localPath), { recursive: true });
  const { transform, digest } = hasher();
  const target = createWriteStream(request.localPath);
  // The local file opens asynchronously: after a failed download, wait for the stream to close
  // (it may still be opening) before removing what it created.
  const closed = new Promise<void>((resolve) => target.once('close', () => resolve()));
  try {
    await pipeline(sftp.createReadStream(request.remotePath), transform, target);
  } catch (error) {
    await closed;
    await unlink(request.localPath).catch(() => undefined);
    return `download of ${request.remotePath} failed: ${(error as Error).message}`;
  }
  const sum = await run(`sha256sum -- ${shQuote(request.remotePath)}`);
  const problem = sum.failed
    ? `cannot checksum ${request.remotePath} on the host: ${sum.stderr.trim()}`
    : checksumMismatch(digest(), remoteChecksum(sum.stdout), request.remotePath);
  if (problem) {
    await unlink(request.localPath).catch(() => undefined);
    return problem;
  }
  return undefined;
}
