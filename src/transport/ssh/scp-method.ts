import type { ClientChannel } from 'ssh2';
import { shQuote } from '../../quote/index.js';
import type { ChannelExit, ConnectionPool } from './connection-pool.js';
import { type TransferMethod, TransferMethodUnavailable } from './transfer-method.js';

/**
 * The scp (rcp) protocol over one exec channel, as OpenSSH's scp.c speaks it when run with `-t`
 * (sink: the host receives) or `-f` (source: the host sends); openssh-portable V_9_2_P1 scp.c,
 * `sink()`, `source()`, `response()`:
 * - every step is acknowledged with one byte: 0 ok, 1 warning + message line, 2 fatal + line;
 * - a file is `C<mode, 4 octal digits> <size> <name>\n`, then `size` bytes, then one status byte;
 * - `T...\n` (times, only with -p) may precede it; `D...` is a directory (we never ask for one).
 * The sink writes to the target path itself when it is not a directory, so the name in our C
 * line is a fixed, harmless word.
 */
const OK = 0;
const BUFFER_LIMIT = 1024 * 1024;
/** How long the program may take to greet us before scp counts as not there (a ForceCommand that ignores the command). */
const READY_TIMEOUT_MS = 30_000;

/** Reads the host's side of the protocol: bytes, lines and counted runs of bytes, with backpressure. */
class ScpReader {
  private chunks: Buffer[] = [];
  private length = 0;
  private ended = false;
  private wake: (() => void) | undefined;

  constructor(private readonly channel: ClientChannel) {
    channel.on('data', (data: Buffer) => {
      this.chunks.push(data);
      this.length += data.length;
      if (this.length > BUFFER_LIMIT) channel.pause();
      this.notify();
    });
    channel.on('end', () => {
      this.ended = true;
      this.notify();
    });
  }

  private notify(): void {
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }

  /** Waits until `n` bytes are buffered; false if the channel ended first. */
  private async fill(n: number): Promise<boolean> {
    while (this.length < n) {
      if (this.ended) return false;
      await new Promise<void>((resolve) => {
        this.wake = resolve;
      });
    }
    return true;
  }

  private take(n: number): Buffer {
    const all = this.chunks.length === 1 ? this.chunks[0]! : Buffer.concat(this.chunks);
    const head = all.subarray(0, n);
    const rest = all.subarray(n);
    this.chunks = rest.length ? [rest] : [];
    this.length = rest.length;
    if (this.length <= BUFFER_LIMIT) this.channel.resume();
    return head;
  }

  /** The next byte, or undefined when the channel ended. */
  async byte(): Promise<number | undefined> {
    return (await this.fill(1)) ? this.take(1)[0] : undefined;
  }

  /** The rest of a line (without the newline). */
  async line(): Promise<string> {
    for (;;) {
      const all = Buffer.concat(this.chunks);
      const nl = all.indexOf(10);
      if (nl >= 0) {
        this.chunks = [all];
        return this.take(nl + 1)
          .subarray(0, nl)
          .toString('utf8');
      }
      if (!(await this.fill(all.length + 1)))
        throw new Error('scp: the channel ended inside a protocol line');
    }
  }

  /** Exactly `size` bytes, as they arrive. */
  async *bytes(size: number): AsyncGenerator<Buffer> {
    let left = size;
    while (left > 0) {
      if (!(await this.fill(1)))
        throw new Error(`scp: the channel ended ${left} bytes before the end of the file`);
      const piece = this.take(Math.min(left, this.length));
      left -= piece.length;
      yield piece;
    }
  }
}

/** A session of `scp -t` / `scp -f` on its own channel. */
class ScpSession {
  private readonly reader: ScpReader;
  private stderr = '';

  private constructor(
    private readonly channel: ClientChannel,
    private readonly exited: Promise<ChannelExit>,
  ) {
    this.reader = new ScpReader(channel);
    channel.stderr.on('data', (data: Buffer) => {
      this.stderr += data.toString('utf8');
    });
  }

  static async open(pool: Pick<ConnectionPool, 'openExec'>, command: string): Promise<ScpSession> {
    const { channel, exited } = await pool.openExec(command);
    return new ScpSession(channel, exited);
  }

  /**
   * The program's first byte, which must be one of `expected`. A channel that ends before it (the
   * shell found no scp: exit 127), silence, or a first byte scp never sends (another program)
   * means scp is not there: the only case that counts as "unavailable".
   */
  async greeting(expected: number[]): Promise<number> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), READY_TIMEOUT_MS);
    });
    const first = await Promise.race([this.reader.byte(), timeout]);
    clearTimeout(timer);
    if (first === undefined || first === 'timeout' || !expected.includes(first)) {
      if (first === 'timeout' || first !== undefined) this.channel.close();
      const exit = await this.exited;
      const said = this.stderr.trim().split('\n')[0];
      const why =
        first === 'timeout'
          ? `no scp greeting within ${READY_TIMEOUT_MS} ms`
          : first === undefined
            ? `exit ${exit.code ?? exit.signal ?? 'unknown'}${said ? `: ${said}` : ''}`
            : 'the program on the host does not speak the scp protocol';
      throw new TransferMethodUnavailable(`scp is not usable on the host (${why})`);
    }
    return first;
  }

  /** Fails with the host's message unless `code` is OK. */
  async expectOk(code: number | undefined): Promise<void> {
    if (code === OK) return;
    if (code === undefined) throw new Error(`scp ended the session early${this.said()}`);
    const message = code === 1 || code === 2 ? await this.reader.line() : `unexpected byte ${code}`;
    throw new Error(message.replace(/^scp: /, ''));
  }

  async ack(): Promise<void> {
    await this.expectOk(await this.reader.byte());
  }

  get read(): ScpReader {
    return this.reader;
  }

  /** Writes with backpressure; fails if the channel closed under us. */
  async write(data: Buffer | string): Promise<void> {
    if (this.channel.write(data)) return;
    await new Promise<void>((resolve, reject) => {
      const done = (closed: boolean) => {
        this.channel.off('drain', onDrain);
        this.channel.off('close', onClose);
        if (closed) reject(new Error(`scp: the channel closed during the transfer${this.said()}`));
        else resolve();
      };
      const onDrain = () => done(false);
      const onClose = () => done(true);
      this.channel.on('drain', onDrain);
      this.channel.on('close', onClose);
    });
  }

  /** Ends our side and waits for scp to exit 0. */
  async finish(): Promise<void> {
    this.channel.end();
    const exit = await this.exited;
    if (exit.code !== 0)
      throw new Error(`scp exited with ${exit.code ?? exit.signal ?? 'no status'}${this.said()}`);
  }

  abandon(): void {
    this.channel.close();
  }

  private said(): string {
    const line = this.stderr.trim().split('\n')[0];
    return line ? `: ${line}` : '';
  }
}

/** Bytes scp may send first: an acknowledgement, or (a source) a file, times or a directory. */
const ACKS = [OK, 1, 2];
const SOURCE_FIRST = [1, 2, 0x43 /* C */, 0x44 /* D */, 0x54 /* T */];

/** File transfer with the scp protocol (for hosts without an SFTP subsystem). */
export function scpMethod(pool: Pick<ConnectionPool, 'openExec'>): TransferMethod {
  return {
    name: 'scp',
    async upload(remotePath, source, size) {
      const scp = await ScpSession.open(pool, `scp -t -- ${shQuote(remotePath)}`);
      let finished = false;
      try {
        await scp.expectOk(await scp.greeting(ACKS));
        await scp.write(`C0600 ${size} kubemix-upload\n`);
        await scp.ack();
        let sent = 0;
        for await (const chunk of source) {
          sent += chunk.length;
          if (sent > size) throw new Error(`the local file grew during the upload (more than ${size} bytes)`);
          await scp.write(chunk);
        }
        if (sent !== size)
          throw new Error(`the local file shrank during the upload (${sent} of ${size} bytes)`);
        await scp.write(Buffer.from([OK]));
        await scp.ack();
        await scp.finish();
        finished = true;
      } finally {
        if (!finished) scp.abandon();
      }
    },
    async *download(remotePath) {
      const scp = await ScpSession.open(pool, `scp -f -- ${shQuote(remotePath)}`);
      let finished = false;
      try {
        await scp.write(Buffer.from([OK]));
        let code = await scp.greeting(SOURCE_FIRST);
        while (code === 0x54) {
          await scp.read.line();
          await scp.write(Buffer.from([OK]));
          code = (await scp.read.byte()) ?? -1;
        }
        if (code === 1 || code === 2 || code < 0) await scp.expectOk(code < 0 ? undefined : code);
        if (code === 0x44) throw new Error(`${remotePath} is a directory`);
        const header = code === 0x43 ? /^(\d{4}) (\d+) /.exec(await scp.read.line()) : null;
        if (!header) throw new Error('scp sent something other than a file header');
        await scp.write(Buffer.from([OK]));
        yield* scp.read.bytes(Number(header[2]));
        await scp.ack();
        await scp.write(Buffer.from([OK]));
        await scp.finish();
        finished = true;
      } finally {
        if (!finished) scp.abandon();
      }
    },
  };
}
