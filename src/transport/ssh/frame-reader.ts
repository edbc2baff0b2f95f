import { StringDecoder } from 'node:string_decoder';
import type { OutputChunk } from '../types.js';

/** What one framed command produced. */
export interface FramedOutcome {
  stdout: Buffer;
  stderr: Buffer;
  /** Exit status from the trailer (the shell's `$?`), or null when the stream ended without one. */
  exitCode: number | null;
  /** PID (= process group) of the command, from its header. */
  pid?: number;
}

/**
 * Splits one command's bytes out of a long-lived shell's stdout and stderr.
 *
 * Wire format, per command, with a random TOKEN that output will not contain by chance:
 *   stdout: `TOKEN:pid:<pid>\n` <command stdout> `\nTOKEN:rc:<status>\n`
 *   stderr:                     <command stderr> `\nTOKEN:end\n`
 * The trailers begin with a newline of their own, so output without a trailing newline and
 * arbitrary bytes survive unchanged. With `header: false` (long-lived sessions) there is no
 * header line: the body starts at once. With `trailers: false` (a fresh exec channel) the body runs
 * to the end of the stream instead.
 */
export class FrameReader {
  private readonly header: Buffer;
  private readonly stdoutTrailer: Buffer;
  private readonly stderrTrailer: Buffer;
  private readonly outChunks: Buffer[] = [];
  private readonly errChunks: Buffer[] = [];
  private outPending: Buffer = Buffer.alloc(0);
  private errPending: Buffer = Buffer.alloc(0);
  private outState: 'header' | 'body' | 'rc' | 'done' = 'header';
  private errState: 'body' | 'done' = 'body';
  private readonly outDecoder = new StringDecoder('utf8');
  private readonly errDecoder = new StringDecoder('utf8');
  private exitCode: number | null = null;
  private pidValue: number | undefined;
  private readonly pidWaiters: ((pid: number | undefined) => void)[] = [];

  constructor(
    readonly token: string,
    private readonly options: {
      onOutput?: (chunk: OutputChunk) => void;
      trailers?: boolean;
      header?: boolean;
    } = {},
  ) {
    if (options.header === false) this.outState = 'body';
    this.header = Buffer.from(`${token}:pid:`);
    this.stdoutTrailer = Buffer.from(`\n${token}:rc:`);
    this.stderrTrailer = Buffer.from(`\n${token}:end\n`);
  }

  /** PID from the header, once known. */
  get pid(): number | undefined {
    return this.pidValue;
  }

  /** Resolves with the PID as soon as the header arrives (undefined if the command ended without one). */
  waitForPid(): Promise<number | undefined> {
    if (this.pidValue !== undefined || this.outState === 'done') return Promise.resolve(this.pidValue);
    return new Promise((resolve) => this.pidWaiters.push(resolve));
  }

  /** True once both trailers have been read. */
  get done(): boolean {
    return this.outState === 'done' && this.errState === 'done';
  }

  pushStdout(data: Buffer): void {
    if (this.outState === 'done') return;
    this.outPending = this.outPending.length ? Buffer.concat([this.outPending, data]) : data;
    if (this.outState === 'header') this.readHeader();
    if (this.outState === 'body') this.readBody('stdout');
    if (this.outState === 'rc') this.readRc();
  }

  pushStderr(data: Buffer): void {
    if (this.errState === 'done') return;
    this.errPending = this.errPending.length ? Buffer.concat([this.errPending, data]) : data;
    this.readBody('stderr');
  }

  /** The streams ended (fresh exec channel, or a session that died): keep whatever arrived. */
  end(): void {
    if (this.outState === 'header' && this.options.trailers === false) this.outState = 'body';
    if (this.outState === 'body') this.emit('stdout', this.outPending);
    if (this.errState === 'body') this.emit('stderr', this.errPending);
    this.outPending = Buffer.alloc(0);
    this.errPending = Buffer.alloc(0);
    this.finishPid();
    this.outState = 'done';
    this.errState = 'done';
  }

  /** Everything read so far. */
  outcome(): FramedOutcome {
    const outcome: FramedOutcome = {
      stdout: Buffer.concat(this.outChunks),
      stderr: Buffer.concat(this.errChunks),
      exitCode: this.exitCode,
    };
    if (this.pidValue !== undefined) outcome.pid = this.pidValue;
    return outcome;
  }

  private readHeader(): void {
    const at = this.outPending.indexOf(this.header);
    if (at >= 0) {
      const nl = this.outPending.indexOf(10, at);
      if (nl < 0) return;
      const pid = Number.parseInt(
        this.outPending.subarray(at + this.header.length, nl).toString('latin1'),
        10,
      );
      if (Number.isFinite(pid)) this.pidValue = pid;
      // Bytes before the header belong to nobody we run (a background job of an earlier command).
      this.outPending = this.outPending.subarray(nl + 1);
      this.outState = 'body';
      this.finishPid();
      return;
    }
    if (this.options.trailers !== false && this.outPending.indexOf(this.stdoutTrailer) >= 0) {
      // The command never started (e.g. fork failed): no header, only the trailer.
      this.outState = 'body';
      this.finishPid();
    }
  }

  private readBody(stream: 'stdout' | 'stderr'): void {
    const pending = stream === 'stdout' ? this.outPending : this.errPending;
    if (this.options.trailers === false) {
      this.emit(stream, pending);
      this.setPending(stream, Buffer.alloc(0));
      return;
    }
    const trailer = stream === 'stdout' ? this.stdoutTrailer : this.stderrTrailer;
    const at = pending.indexOf(trailer);
    if (at >= 0) {
      this.emit(stream, pending.subarray(0, at));
      if (stream === 'stdout') {
        this.outPending = pending.subarray(at + trailer.length);
        this.outState = 'rc';
      } else {
        this.errPending = Buffer.alloc(0);
        this.errState = 'done';
      }
      return;
    }
    // Keep back only a tail that could be the start of a trailer split across chunks.
    const keep = partialTrailerLength(pending, trailer);
    this.emit(stream, pending.subarray(0, pending.length - keep));
    this.setPending(stream, Buffer.from(pending.subarray(pending.length - keep)));
  }

  private readRc(): void {
    const nl = this.outPending.indexOf(10);
    if (nl < 0) return;
    const code = Number.parseInt(this.outPending.subarray(0, nl).toString('latin1'), 10);
    this.exitCode = Number.isFinite(code) ? code : null;
    this.outPending = Buffer.alloc(0);
    this.outState = 'done';
  }

  private setPending(stream: 'stdout' | 'stderr', value: Buffer): void {
    if (stream === 'stdout') this.outPending = value;
    else this.errPending = value;
  }

  private emit(stream: 'stdout' | 'stderr', data: Buffer): void {
    if (data.length === 0) return;
    (stream === 'stdout' ? this.outChunks : this.errChunks).push(data);
    const onOutput = this.options.onOutput;
    if (onOutput) {
      const text = (stream === 'stdout' ? this.outDecoder : this.errDecoder).write(data);
      if (text) onOutput({ stream, data: text });
    }
  }

  private finishPid(): void {
    for (const waiter of this.pidWaiters.splice(0)) waiter(this.pidValue);
  }
}

/** Length of the longest tail of `data` that is a proper prefix of `trailer` (trailers start with a newline). */
function partialTrailerLength(data: Buffer, trailer: Buffer): number {
  const from = Math.max(0, data.length - trailer.length + 1);
  for (let at = data.indexOf(10, from); at >= 0; at = data.indexOf(10, at + 1)) {
    const tail = data.subarray(at);
    if (trailer.subarray(0, tail.length).equals(tail)) return tail.length;
  }
  return 0;
}
