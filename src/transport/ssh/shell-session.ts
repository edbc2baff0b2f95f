import type { ClientChannel } from 'ssh2';
import type { OutputChunk } from '../types.js';
import { type FramedOutcome, FrameReader } from './frame-reader.js';
import { newToken, SESSION_PREAMBLE, type ShellCommand, sessionBlock } from './shell-script.js';

/** How a command on a session ended. */
export type SessionRunOutcome =
  | ({ kind: 'done' } & FramedOutcome)
  /** The channel closed before the trailers: output so far, and why. */
  | ({ kind: 'lost'; reason: string } & FramedOutcome);

/** A command started on a session: its reader (for the PID) and its outcome. */
export interface SessionRun {
  reader: FrameReader;
  outcome: Promise<SessionRunOutcome>;
}

/**
 * One long-lived `/bin/sh` on one exec channel, fed framed commands over stdin, one at a time.
 * Each command runs in its own process (own cwd, env, process group), so nothing leaks between
 * commands and a kill of one command leaves the shell running.
 */
export class ShellSession {
  private current: { reader: FrameReader; settle: (outcome: SessionRunOutcome) => void } | undefined;
  private closedReason: string | undefined;

  private constructor(private readonly channel: ClientChannel) {
    channel.on('data', (data: Buffer) => {
      this.current?.reader.pushStdout(data);
      this.checkDone();
    });
    channel.stderr.on('data', (data: Buffer) => {
      this.current?.reader.pushStderr(data);
      this.checkDone();
    });
    channel.on('close', () => this.onClose('the remote shell exited'));
    channel.on('error', (error: Error) => this.onClose(`channel error: ${error.message}`));
  }

  /** Starts `/bin/sh` on a channel the caller opened with `exec`. */
  static attach(channel: ClientChannel): ShellSession {
    const session = new ShellSession(channel);
    channel.write(SESSION_PREAMBLE);
    return session;
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
    const readerOptions: { onOutput?: (chunk: OutputChunk) => void } = {};
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

  private checkDone(): void {
    const current = this.current;
    if (current?.reader.done) {
      this.current = undefined;
      current.settle({ kind: 'done', ...current.reader.outcome() });
    }
  }

  private onClose(reason: string): void {
    if (this.closedReason === undefined) this.closedReason = reason;
    const current = this.current;
    if (current) {
      this.current = undefined;
      current.reader.end();
      current.settle({ kind: 'lost', reason: this.closedReason, ...current.reader.outcome() });
    }
  }
}
