import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { FrameReader } from '../../../src/transport/ssh/frame-reader.js';
import type { OutputChunk } from '../../../src/transport/types.js';

const token = 'KMX0123456789abcdef0123456789abcdef';

function framed(stdout: Buffer, stderr: Buffer, rc: number, pid = 4242) {
  return {
    out: Buffer.concat([Buffer.from(`${token}:pid:${pid}\n`), stdout, Buffer.from(`\n${token}:rc:${rc}\n`)]),
    err: Buffer.concat([stderr, Buffer.from(`\n${token}:end\n`)]),
  };
}

/** Feeds a buffer in pieces of the given size. */
function feed(push: (b: Buffer) => void, data: Buffer, size: number) {
  for (let i = 0; i < data.length; i += size) push(data.subarray(i, i + size));
}

describe('FrameReader', () => {
  it('splits stdout, stderr, pid and exit code, whatever the chunking', () => {
    const stdout = Buffer.from('hello\nno newline at end');
    const stderr = Buffer.from('warn\n');
    const { out, err } = framed(stdout, stderr, 3);
    for (const size of [1, 2, 3, 7, 39, 40, 41, 1000]) {
      const reader = new FrameReader(token);
      feed((b) => reader.pushStdout(b), out, size);
      expect(reader.done).toBe(false);
      feed((b) => reader.pushStderr(b), err, size);
      expect(reader.done).toBe(true);
      const outcome = reader.outcome();
      expect(outcome.stdout.toString()).toBe(stdout.toString());
      expect(outcome.stderr.toString()).toBe(stderr.toString());
      expect(outcome.exitCode).toBe(3);
      expect(outcome.pid).toBe(4242);
    }
  });

  it('keeps binary output and output that contains pieces of the trailer', () => {
    const stdout = Buffer.concat([
      randomBytes(5000),
      Buffer.from(`\n${token}:r`),
      Buffer.from(`\n${token.slice(0, 10)}\n`),
    ]);
    const { out, err } = framed(stdout, Buffer.alloc(0), 0);
    const reader = new FrameReader(token);
    feed((b) => reader.pushStdout(b), out, 13);
    reader.pushStderr(err);
    expect(reader.outcome().stdout.equals(stdout)).toBe(true);
    expect(reader.outcome().stderr.length).toBe(0);
  });

  it('streams text as it arrives, holding back only a possible trailer start', () => {
    const chunks: OutputChunk[] = [];
    const reader = new FrameReader(token, { onOutput: (c) => chunks.push(c) });
    reader.pushStdout(Buffer.from(`${token}:pid:1\nfirst line\n`));
    expect(chunks).toEqual([{ stream: 'stdout', data: 'first line' }]);
    reader.pushStdout(Buffer.from('second'));
    expect(chunks.map((c) => c.data).join('')).toBe('first line\nsecond');
    // A UTF-8 character split across chunks is emitted whole.
    const e = Buffer.from('é');
    reader.pushStderr(e.subarray(0, 1));
    reader.pushStderr(e.subarray(1));
    expect(chunks.at(-1)).toEqual({ stream: 'stderr', data: 'é' });
  });

  it('drops stray bytes before the header and resolves the pid for waiters', async () => {
    const reader = new FrameReader(token);
    const pid = reader.waitForPid();
    reader.pushStdout(Buffer.from(`late output of a background job\n${token}:pid:77\nok`));
    expect(await pid).toBe(77);
    reader.pushStdout(Buffer.from(`\n${token}:rc:0\n`));
    reader.pushStderr(Buffer.from(`\n${token}:end\n`));
    expect(reader.outcome().stdout.toString()).toBe('ok');
  });

  it('handles a command that never started (no header, only trailers)', async () => {
    const reader = new FrameReader(token);
    const pid = reader.waitForPid();
    reader.pushStdout(Buffer.from(`\n${token}:rc:127\n`));
    reader.pushStderr(Buffer.from(`sh: cannot fork\n${token}:end\n`));
    expect(await pid).toBeUndefined();
    expect(reader.done).toBe(true);
    expect(reader.outcome().exitCode).toBe(127);
    expect(reader.outcome().pid).toBeUndefined();
    expect(reader.outcome().stderr.toString()).toBe('sh: cannot fork');
  });

  it('without trailers (exec channel) keeps everything up to end()', () => {
    const reader = new FrameReader(token, { trailers: false });
    reader.pushStdout(Buffer.from(`${token}:pid:9\r\nout`));
    reader.pushStdout(Buffer.from('put'));
    reader.pushStderr(Buffer.from('err'));
    reader.end();
    expect(reader.outcome()).toMatchObject({ pid: 9, exitCode: null });
    expect(reader.outcome().stdout.toString()).toBe('output');
    expect(reader.outcome().stderr.toString()).toBe('err');
  });

  it('end() before the trailers keeps what arrived (a session that died)', () => {
    const reader = new FrameReader(token);
    reader.pushStdout(Buffer.from(`${token}:pid:5\npartial`));
    reader.end();
    expect(reader.outcome()).toMatchObject({ exitCode: null, pid: 5 });
    expect(reader.outcome().stdout.toString()).toBe('partial');
  });
});
