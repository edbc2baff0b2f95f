import type { ClientChannel } from 'ssh2';
import type { OutputChunk } from '../types.js';
import { type FramedOutcome, FrameReader } from './frame-reader.js';
import { newToken, type ShellCommand, sessionBlock, sessionHello } from './shell-script.js';

/** How a command on a session ended. */
export type SessionRunOutcome =
  | ({ kind: 'done' } & FramedOutcome)
  /** The channel closed before the trailers: output so far, and why. */
  | ({ kind: 'lost'; reason: string } & FramedOutcome);

/** A command started on a session: its reader and its outcome. */
export interface SessionRun {
  reader: FrameReader;
  outcome: Promise<SessionRunOutcome>;
}

/**
 * One long-lived `/bin/sh` on one exec channel, fed framed commands over stdin, one at a time.
 * Each command runs in its own subshell (own cwd, env), so nothing leaks between commands, and
 * killing the shell's children ends the command while the shell stays.
 */
export class ShellSession {
  private current: { reader: FrameReader; settle: (outcome: SessionRunOutcome) => void } | undefined;
  private closedReason: string | undefined;
  private hello: Buffer | undefined = Buffer.alloc(0);
  private readonly helloMarker: Buffer;
  private resolvePid!: (pid: number | undefined) => void;
  /** PID of the remote shell, from its hello (undefined if it never said hello). */
  readonly shellPid: Promise<number | undefined>;

  private constructor(private readonly channel: ClientChannel) {
    const token = newToken();
    this.helloMarker = Buffer.from(`${token}:pid:`);
    this.shellPid = new Promise((resolve) => {
      this.resolvePid = resolve;
    });
    channel.on('data', (data: Buffer) => {
      const rest = this.hello === undefined ? data : this.readHello(data);
      if (rest.length > 0) this.current?.reader.pushStdout(rest);
      this.checkDone();
    });
    channel.stderr.on('data', (data: Buffer) => {
      this.current?.reader.pushStderr(data);
      this.checkDone();
    });
    channel.on('close', () => this.onClose('the remote shell exited'));
    channel.on('error', (error: Error) => this.onClose(`channel error: ${error.message}`));
    channel.write(sessionHello(token));
  }

  /** Starts using `/bin/sh` on a channel the caller opened with `exec`. */
  static attach(channel: ClientChannel): ShellSession {
    return new ShellSession(channel);
  }

  /** False once the channel is gone. */
  get alive(): boolean {
    return this.closedReason === undefined;
  }

  /** True while a command runs. */
  get busy(): boolean {
    return this.current !== undefined;
  }

  /** Runs one command. Callers serialise: starting while busy is a programmer mistake. */
  run(
    cmd: ShellCommand,
    options: { stdin?: Buffer; onOutput?: (chunk: OutputChunk) => void } = {},
  ): SessionRun {
    if (this.current) throw new Error('ShellSession.run while a command is running');
    const token = newToken();
    const readerOptions: ConstructorParameters<typeof FrameReader>[1] = { header: false };
    if (options.onOutput) readerOptions.onOutput = options.onOutput;
    const reader = new FrameReader(token, readerOptions);
    const block = sessionBlock(cmd, token, options.stdin);
    const outcome = new Promise<SessionRunOutcome>((resolve) => {
      if (this.closedReason !== undefined) {
        resolve({ kind: 'lost', reason: this.closedReason, ...reader.outcome() });
        return;
      }
      this.current = { reader, settle: resolve };
      this.channel.write(block);
    });
    return { reader, outcome };
  }

  /** Closes the channel (the shell gets EOF and exits). */
  close(): void {
    this.onClose('the session was closed');
    try {
      this.channel.end();
      this.channel.close();
    } catch {
      // already closed
    }
  }

  /** Consumes the hello line; returns the bytes after it (login-shell noise before it is dropped). */
  private readHello(data: Buffer): Buffer {
    const buffer = Buffer.concat([this.hello ?? Buffer.alloc(0), data]);
    const at = buffer.indexOf(this.helloMarker);
    const nl = at < 0 ? -1 : buffer.indexOf(10, at);
    if (nl < 0) {
      this.hello = buffer;
      return Buffer.alloc(0);
    }
    const pid = Number.parseInt(buffer.subarray(at + this.helloMarker.length, nl).toString('latin1'), 10);
    this.hello = undefined;
    this.resolvePid(Number.isFinite(pid) ? pid : undefined);
    return buffer.subarray(nl + 1);
  }

  private checkDone(): void {
    const current = this.current;
    if (current?.reader.done) {
      this.current = undefined;
      current.settle({ kind: 'done', ...current.reader.outcome() });
    }
  }

  private onClose(reason: string): void {
    if (this.closedReason === undefined) this.closedReason = reason;
    this.resolvePid(undefined);
    const current = this.current;
    if (current) {
      this.current = undefined;
      current.reader.end();
      current.settle({ kind: 'lost', reason: this.closedReason, ...current.reader.outcome() });
    }
  }
}
