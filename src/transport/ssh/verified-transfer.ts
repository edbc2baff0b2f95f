import { createHash, randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, stat, unlink } from 'node:fs/promises';
import { dirname, posix } from 'node:path';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { shQuote } from '../../quote/index.js';
import type { GetRequest, PutRequest } from '../types.js';
import {
  failureText,
  type RunRemote,
  type TransferMethod,
  TransferMethodUnavailable,
} from './transfer-method.js';

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

/** Reads a local file; the file opens only if the method starts reading (else no descriptor leaks). */
async function* readLocal(path: string): AsyncGenerator<Buffer> {
  yield* createReadStream(path);
}

/** The bytes to upload and how many there are (scp announces the size before the data). */
async function uploadSource(request: PutRequest): Promise<{ source: AsyncIterable<Buffer>; size: number }> {
  if (request.localPath !== undefined) {
    const { size } = await stat(request.localPath);
    return { source: readLocal(request.localPath), size };
  }
  const content = Buffer.from(request.content ?? '');
  return { source: Readable.from([content]), size: content.length };
}

/** Yields the chunks of `source` while adding them to `hash`. */
async function* hashing(source: AsyncIterable<Buffer>, hash: ReturnType<typeof createHash>) {
  for await (const chunk of source) {
    hash.update(chunk);
    yield chunk;
  }
}

/**
 * Uploads through `method` to a temporary file beside the target, verifies its sha256 with
 * `sha256sum` on the host, then sets the mode and renames it into place: the target is never
 * half-written, and a mismatch leaves it untouched. Returns an error message, or undefined on
 * success. Throws TransferMethodUnavailable when the host does not offer `method` (nothing is
 * left behind then but the parent directories).
 */
export async function putVerified(
  method: TransferMethod,
  run: RunRemote,
  request: PutRequest,
): Promise<string | undefined> {
  const target = request.remotePath;
  const dir = posix.dirname(target);
  const temp = `${dir}/.${posix.basename(target)}.kmx-${randomBytes(6).toString('hex')}.tmp`;
  const mkdirResult = await run(`mkdir -p -- ${shQuote(dir)}`);
  if (mkdirResult.failed) return `cannot create ${dir}: ${failureText(mkdirResult)}`;
  const hash = createHash('sha256');
  try {
    const { source, size } = await uploadSource(request);
    await method.upload(temp, hashing(source, hash), size);
  } catch (error) {
    if (error instanceof TransferMethodUnavailable) throw error;
    await run(`rm -f -- ${shQuote(temp)}`);
    return `upload to ${target} failed: ${(error as Error).message}`;
  }
  const local = hash.digest('hex');
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
    return `cannot move the upload into place at ${target}: ${failureText(place)}`;
  }
  return undefined;
}

/**
 * Downloads through `method` into a local path, then verifies it against `sha256sum` on the
 * host; a failure or mismatch removes the local copy. Returns an error message, or undefined on
 * success. Throws TransferMethodUnavailable when the host does not offer `method`.
 */
export async function getVerified(
  method: TransferMethod,
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
    await pipeline(Readable.from(method.download(request.remotePath)), transform, target);
  } catch (error) {
    await closed;
    await unlink(request.localPath).catch(() => undefined);
    if (error instanceof TransferMethodUnavailable) throw error;
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
