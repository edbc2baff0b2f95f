import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, rename, rm } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { CommandResult } from '../../types/command-result.js';
import { failedResult } from '../../types/command-result.js';
import type { GetRequest, PutRequest } from '../types.js';
import { getFileScript, powershellInvocation, putFileScript } from './powershell.js';
import { type RunCommand, toResult } from './run-types.js';
import { base64Lines, chunked, concatSources, hashFile } from './stdin-streams.js';

/** Bytes of file per base64 line on stdin (a multiple of 3 so lines need no padding). */
const PUT_LINE_BYTES = 48 * 1024;

/**
 * Copies a file to the host in base64 chunks over stdin; the far side checks SHA-256 with
 * Get-FileHash before moving the file into place. `mode` has no meaning on Windows and is ignored.
 */
export async function putFile(run: RunCommand, host: string, request: PutRequest): Promise<CommandResult> {
  const display = `put ${request.localPath ?? '<content>'} -> ${host}:${request.remotePath}`;
  const started = Date.now();
  let sha256: string;
  let source: Buffer | AsyncIterable<Buffer>;
  try {
    if (request.localPath !== undefined) {
      sha256 = await hashFile(request.localPath);
      source = createReadStream(request.localPath, { highWaterMark: PUT_LINE_BYTES });
    } else {
      const content = Buffer.from(request.content ?? '');
      sha256 = createHash('sha256').update(content).digest('hex');
      source = content;
    }
  } catch (error) {
    return failedResult(
      display,
      `cannot read ${request.localPath}: ${(error as Error).message}`,
      Date.now() - started,
      host,
    );
  }
  const lines = base64Lines(chunked(source, PUT_LINE_BYTES));
  const invocation = powershellInvocation(putFileScript(request.remotePath, sha256));
  const outcome = await run({
    commandLine: invocation.commandLine,
    stdin: concatSources(invocation.stdinPrefix, lines),
  });
  const result = toResult(host, display, outcome, true);
  result.stdout = '';
  const farHash = outcome.stdout.toString('utf8').trim();
  if (!result.failed && farHash !== sha256) {
    result.failed = true;
    result.stderr = `SHA-256 mismatch: sent ${sha256}, host reports ${farHash || 'nothing'}`;
  }
  return result;
}

/** Fetches a file as base64 lines; checks the SHA-256 the host reports against the bytes received. */
export async function getFile(run: RunCommand, host: string, request: GetRequest): Promise<CommandResult> {
  const display = `get ${host}:${request.remotePath} -> ${request.localPath}`;
  const started = Date.now();
  const partPath = `${request.localPath}.kubemix-part`;
  try {
    await mkdir(dirname(request.localPath), { recursive: true });
  } catch (error) {
    return failedResult(display, (error as Error).message, 0, host);
  }
  const file = createWriteStream(partPath);
  const hash = createHash('sha256');
  let farHash: string | undefined;
  let pending = '';
  let badLine = false;
  const take = (line: string) => {
    const trimmed = line.trim();
    if (farHash === undefined) {
      farHash = trimmed.toLowerCase();
      return;
    }
    if (!trimmed) return;
    const bytes = Buffer.from(trimmed, 'base64');
    // Buffer.from skips characters that are not base64; a length check catches them cheaply.
    const padding = trimmed.endsWith('==') ? 2 : trimmed.endsWith('=') ? 1 : 0;
    if (trimmed.length % 4 !== 0 || bytes.length !== (trimmed.length / 4) * 3 - padding) badLine = true;
    hash.update(bytes);
    file.write(bytes);
  };
  const invocation = powershellInvocation(getFileScript(request.remotePath));
  const outcome = await run({
    commandLine: invocation.commandLine,
    ...(invocation.stdinPrefix ? { stdin: invocation.stdinPrefix } : {}),
    collectStdout: false,
    onStdout: (data) => {
      pending += data.toString('latin1');
      const lines = pending.split('\n');
      pending = lines.pop() ?? '';
      for (const line of lines) take(line);
    },
  });
  if (pending) take(pending);
  await new Promise<void>((resolve) => file.end(resolve));
  const result = toResult(host, display, outcome, true);
  result.stdout = '';
  const nearHash = hash.digest('hex');
  if (!result.failed && (badLine || farHash !== nearHash)) {
    result.failed = true;
    result.stderr = `SHA-256 mismatch: host reports ${farHash ?? 'nothing'}, received bytes hash to ${nearHash}`;
  }
  if (result.failed) await rm(partPath, { force: true });
  else await rename(partPath, request.localPath);
  result.durationMs = Date.now() - started;
  return result;
}
