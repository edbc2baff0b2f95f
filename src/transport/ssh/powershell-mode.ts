import type { ClientChannel } from 'ssh2';
import type { CommandResult } from '../../types/command-result.js';
// The PowerShell exec, put and get both Windows transports share (transport/powershell): the same
// wrapper, stdin bootstrap, CLIXML decoding and hash-checked copy scripts, whatever carries them.
import { getFile, putFile } from '../powershell/file-copy.js';
import { execPowerShell } from '../powershell/powershell-exec.js';
import { outcomeCollector, type RunOptions, type RunOutcome } from '../powershell/run-types.js';
import type { ExecRequest, GetRequest, PutRequest } from '../types.js';
import type { ChannelExit, ConnectionPool } from './connection-pool.js';

/** How long a stopped command's channel may take to confirm its close before the result is given back. */
const STOP_GRACE_MS = 2000;

/** What PowerShell mode needs from the SSH transport: a connected pool (or why there is none). */
export interface PowerShellModeHost {
  host: string;
  ready(): Promise<Pick<ConnectionPool, 'openExec'> | string>;
  endpoint(): string | undefined;
}

/**
 * SSH to Windows hosts whose OpenSSH shell is PowerShell (or cmd): there is no /bin/sh to keep
 * open, so every command is `powershell.exe -NoProfile -NonInteractive -EncodedCommand <base64
 * UTF-16LE>` on its own exec channel, wrapped like the WinRM client's scripts (stop on errors,
 * env, cwd, exit code), with long scripts sent through the stdin bootstrap. stdout and stderr
 * stay separate; CLIXML stderr is decoded. put/get use the same chunked, SHA-256-checked
 * PowerShell copy scripts as WinRM (no SFTP path translation needed). A timeout or abort closes
 * the channel, which ends the session's process tree on Windows OpenSSH.
 */
export class PowerShellMode {
  constructor(private readonly target: PowerShellModeHost) {}

  private async run(options: RunOptions): Promise<RunOutcome> {
    const { stdout, stderr, outcome } = outcomeCollector();
    if (options.signal?.aborted) return outcome({ error: 'cancelled before it started' });
    const pool = await this.target.ready();
    if (typeof pool === 'string') return outcome({ error: pool });
    let channel: ClientChannel;
    let conn: { alive: boolean; lostReason?: string };
    let exited: Promise<ChannelExit>;
    try {
      ({ channel, conn, exited } = await pool.openExec(options.commandLine));
    } catch (error) {
      return outcome({ error: (error as Error).message });
    }
    let exit: ChannelExit = { code: null };
    let closed = false;
    let stopDone: () => void = () => undefined;
    const done = new Promise<void>((resolve) => {
      stopDone = resolve;
      channel.on('data', (data: Buffer) => {
        if (options.collectStdout !== false) stdout.push(data);
        options.onStdout?.(data);
      });
      channel.stderr.on('data', (data: Buffer) => {
        stderr.push(data);
        options.onStderr?.(data);
      });
      void exited.then((end) => {
        exit = end;
        closed = true;
        resolve();
      });
    });
    let timedOut = false;
    let cancelled = false;
    let graceTimer: NodeJS.Timeout | undefined;
    // OpenSSH confirms the close only once the session's process has exited: wait a little, then
    // give the result back (the channel's slot is freed when the confirmation comes).
    const stop = () => {
      channel.close();
      graceTimer ??= setTimeout(stopDone, STOP_GRACE_MS);
    };
    const timer =
      options.timeoutMs === undefined
        ? undefined
        : setTimeout(() => {
            timedOut = true;
            stop();
          }, options.timeoutMs);
    const onAbort = () => {
      cancelled = true;
      stop();
    };
    options.signal?.addEventListener('abort', onAbort, { once: true });
    void this.feed(channel, options.stdin, () => closed);
    await done;
    if (timer) clearTimeout(timer);
    if (graceTimer) clearTimeout(graceTimer);
    const orphan = closed ? '' : ' (the host had not ended the command yet; it may run on until it exits)';
    options.signal?.removeEventListener('abort', onAbort);
    if (timedOut)
      return outcome({
        timedOut: true,
        error: `${this.target.host}: timed out after ${options.timeoutMs} ms; the channel was closed${orphan}`,
      });
    if (cancelled)
      return outcome({ error: `${this.target.host}: cancelled; the channel was closed${orphan}` });
    if (!conn.alive)
      return outcome({
        error: `connection to ${this.target.host} (${this.target.endpoint()}) was lost while the command ran: ${conn.lostReason ?? 'closed'}`,
      });
    if (exit.code === null)
      return outcome({
        error: exit.signal
          ? `the command was killed by ${exit.signal}`
          : 'the channel closed without an exit status',
      });
    return outcome({ exitCode: exit.code });
  }

  /** Writes stdin with backpressure, then EOF (the bootstrap and copy scripts read to the end). */
  private async feed(
    channel: ClientChannel,
    stdin: RunOptions['stdin'],
    isClosed: () => boolean,
  ): Promise<void> {
    try {
      if (stdin !== undefined) {
        const pieces: Iterable<Buffer> | AsyncIterable<Buffer> = Buffer.isBuffer(stdin) ? [stdin] : stdin;
        for await (const piece of pieces) {
          if (isClosed()) return;
          if (!channel.write(piece))
            await new Promise<void>((resolve) => {
              const go = () => {
                channel.off('drain', go);
                channel.off('close', go);
                resolve();
              };
              channel.on('drain', go);
              channel.on('close', go);
            });
        }
      }
      if (!isClosed()) channel.end();
    } catch {
      // A channel that closed under us reports through its own close/exit events.
    }
  }

  /** Runs a PowerShell script (the transport's exec contract). become has no meaning here. */
  exec(request: ExecRequest): Promise<CommandResult> {
    return execPowerShell(request, {
      host: this.target.host,
      becomeRefusal:
        'become is not supported on Windows over SSH: connect as the account that should run the command',
      run: (options) => this.run(options),
    });
  }

  put(request: PutRequest): Promise<CommandResult> {
    return putFile((o) => this.run(o), this.target.host, request);
  }

  get(request: GetRequest): Promise<CommandResult> {
    return getFile((o) => this.run(o), this.target.host, request);
  }
}
