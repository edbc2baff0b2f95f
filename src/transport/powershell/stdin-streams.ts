import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';

/** Re-chunks a buffer or a stream into pieces of exactly `size` bytes (the last may be shorter). */
export async function* chunked(source: Buffer | AsyncIterable<Buffer>, size: number): AsyncGenerator<Buffer> {
  if (Buffer.isBuffer(source)) {
    for (let at = 0; at < source.length; at += size) yield source.subarray(at, at + size);
    return;
  }
  let pending: Buffer[] = [];
  let pendingLength = 0;
  for await (const piece of source) {
    pending.push(piece);
    pendingLength += piece.length;
    while (pendingLength >= size) {
      const all = Buffer.concat(pending);
      yield all.subarray(0, size);
      pending = [all.subarray(size)];
      pendingLength = all.length - size;
    }
  }
  if (pendingLength > 0) yield Buffer.concat(pending);
}

/** Yields each source in turn. */
export async function* concatSources(
  ...sources: (Buffer | AsyncIterable<Buffer> | undefined)[]
): AsyncGenerator<Buffer> {
  for (const s of sources) {
    if (s === undefined) continue;
    if (Buffer.isBuffer(s)) yield s;
    else yield* s;
  }
}

/** Encodes each piece as one base64 line (LF-terminated). */
export async function* base64Lines(source: AsyncIterable<Buffer>): AsyncGenerator<Buffer> {
  for await (const piece of source) yield Buffer.from(`${piece.toString('base64')}\n`, 'latin1');
}

/** SHA-256 of a local file, hex. */
export async function hashFile(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const piece of createReadStream(path)) hash.update(piece as Buffer);
  return hash.digest('hex');
}
