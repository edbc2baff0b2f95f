import { ConnectionError } from '../../errors/index.js';
import type { CommandResult } from '../../types/command-result.js';
import { getFile, putFile } from '../powershell/file-copy.js';
import { execPowerShell, streamOutput } from '../powershell/powershell-exec.js';
import { outcomeCollector, type RunOptions, type RunOutcome, toResult } from '../powershell/run-types.js';
import { chunked } from '../powershell/stdin-streams.js';
import type { ConnectionDetail, ExecRequest, GetRequest, PutRequest, Transport } from '../types.js';
import { WinrmChannel } from './channel.js';
import { winrmConnectionDetail } from './connection-detail.js';
import { WinrmProtocolError, WSMAN_SHELL_NOT_FOUND, WsmanFaultError } from './errors.js';
import { type ResolvedWinrmOptions, resolveOptions, type WinrmTransportOptions } from './options.js';
import { WinrmShell } from './shell.js';
import { SIGNAL_TERMINATE } from './soap.js';

/** A raw command for cmd.exe (no PowerShell wrapper): `execRaw({ command: 'ipconfig', args: ['/all'] })`. */
export interface RawExecRequest extends Omit<ExecRequest, 'env' | 'cwd' | 'become'> {
  args?: string[];
}

/**
 * Transport over WinRM (WS-Management remote shell), for Windows hosts. One authenticated
 * connection and one shell per host, reused by every command. `exec` runs PowerShell;
 * `execRaw` runs a cmd.exe command line. Operations on one transport run one at a time.
 */
export class WinrmTransport implements Transport {
  readonly kind = 'winrm' as const;
  readonly host: string;
  private resolved: ResolvedWinrmOptions | undefined;
  private channel: WinrmChannel | undefined;
  private shell: WinrmShell | undefined;
  /** A shell left behind by a lost connection; deleted (best effort) before the next one opens. */
  private staleShellId: string | undefined;
  private queue: Promise<unknown> = Promise.resolve();

  constructor(private readonly options: WinrmTransportOptions) {
    this.host = options.host;
  }

  /** Where and how it connects (-vvv), once connect() has resolved the options. */
  connectionDetail(): ConnectionDetail | undefined {
    return this.resolved ? winrmConnectionDetail(this.resolved) : undefined;
  }

  /** Connects, authenticates and opens the shell. Throws ConnectionError (or WinrmConfigError for bad options). */
  async connect(): Promise<void> {
    await this.serialised(async () => {
      this.resolved ??= await resolveOptions(this.options);
      this.channel ??= new WinrmChannel(this.resolved);
      this.shell ??= new WinrmShell(this.channel, this.resolved);
      try {
        await this.ensureShell();
      } catch (error) {
        await this.channel.reset();
        if (error instanceof ConnectionError) throw error;
        throw new ConnectionError(this.host, `cannot open a WinRM shell: ${(error as Error).message}`, {
          cause: error,
        });
      }
    });
  }

  private serialised<T>(work: () => Promise<T>): Promise<T> {
    const next = this.queue.then(work, work);
    this.queue = next.catch(() => undefined);
    return next;
  }

  private async ensureShell(): Promise<WinrmShell> {
    const shell = this.shell;
    if (!shell) throw new WinrmProtocolError(`${this.host}: not connected; call connect() first`);
    if (shell.shellId) return shell;
    if (this.staleShellId) {
      const stale = this.staleShellId;
      this.staleShellId = undefined;
      shell.shellId = stale;
      await shell.delete().catch(() => undefined);
    }
    await shell.open();
    return shell;
  }

  /** Forgets the connection after a failure: the next operation reconnects and opens a new shell. */
  private async dropConnection(): Promise<void> {
    if (this.shell?.shellId) {
      this.staleShellId = this.shell.shellId;
      this.shell.shellId = undefined;
    }
    await this.channel?.reset();
  }

  /** Runs one command line in the shell until it is done, re-issuing Receive on w:TimedOut. */
  private async run(options: RunOptions): Promise<RunOutcome> {
    const { started, stdout, stderr, outcome } = outcomeCollector();
    if (!this.shell || !this.resolved) return outcome({ error: 'not connected; call connect() first' });
    let shell: WinrmShell;
    let commandId: string;
    let phase = 'Command';
    try {
      shell = await this.ensureShell();
      try {
        commandId = await shell.command(options.commandLine, options.args);
      } catch (error) {
        // The shell vanished on the server (deleted, idle timeout, service restart): make a new one once.
        if (!(error instanceof WsmanFaultError) || !isShellGone(error)) throw error;
        shell.shellId = undefined;
        shell = await this.ensureShell();
        commandId = await shell.command(options.commandLine, options.args);
      }
    } catch (error) {
      if (error instanceof ConnectionError || error instanceof WinrmProtocolError)
        await this.dropConnection();
      return outcome({ error: describe(error, phase) });
    }

    let terminated = false;
    const terminate = async () => {
      if (terminated) return;
      terminated = true;
      await shell.signal(commandId, SIGNAL_TERMINATE).catch(() => undefined);
    };
    try {
      if (options.stdin !== undefined) {
        phase = 'Send';
        let previous: Buffer | undefined;
        for await (const piece of chunked(options.stdin, shell.maxSendChunk)) {
          if (previous) await shell.sendAll(commandId, previous, false);
          previous = piece;
        }
        await shell.sendAll(commandId, previous ?? Buffer.alloc(0), true);
      }
      phase = 'Receive';
      const operationTimeout = this.resolved.operationTimeoutSec;
      for (;;) {
        if (options.signal?.aborted) {
          await terminate();
          return outcome({ error: 'cancelled' });
        }
        // With an abort signal, poll at least every 5 s so cancelling does not wait a full OperationTimeout.
        let waitSec = options.signal ? Math.min(operationTimeout, 5) : operationTimeout;
        if (options.timeoutMs !== undefined) {
          const left = options.timeoutMs - (Date.now() - started);
          if (left <= 0) {
            await terminate();
            return outcome({ timedOut: true, error: `timed out after ${options.timeoutMs} ms` });
          }
          waitSec = Math.max(1, Math.min(waitSec, Math.ceil(left / 1000)));
        }
        let chunk: Awaited<ReturnType<WinrmShell['receive']>>;
        try {
          chunk = await shell.receive(commandId, waitSec);
        } catch (error) {
          if (error instanceof WsmanFaultError && error.timedOut) continue;
          throw error;
        }
        if (chunk.stdout.length) {
          if (options.collectStdout !== false) stdout.push(chunk.stdout);
          options.onStdout?.(chunk.stdout);
        }
        if (chunk.stderr.length) {
          stderr.push(chunk.stderr);
          options.onStderr?.(chunk.stderr);
        }
        if (chunk.done) {
          phase = 'Signal';
          await terminate();
          return outcome({ exitCode: chunk.exitCode ?? null });
        }
      }
    } catch (error) {
      if (error instanceof ConnectionError || error instanceof WinrmProtocolError) {
        await this.dropConnection();
      } else {
        await terminate();
      }
      return outcome({ error: describe(error, phase) });
    }
  }

  /**
   * Runs `request.command` as a PowerShell script: stops at the first error, exit code passed
   * on, env and cwd applied. Scripts too long for a command line travel over stdin.
   */
  exec(request: ExecRequest): Promise<CommandResult> {
    return execPowerShell(request, {
      host: this.host,
      becomeRefusal: 'become is not supported over WinRM: connect as the account that should run the command',
      run: (options) => this.serialised(() => this.run(options)),
    });
  }

  /** Runs a cmd.exe command line as is (no PowerShell), e.g. `{ command: 'ipconfig', args: ['/all'] }`. */
  execRaw(request: RawExecRequest): Promise<CommandResult> {
    const display = request.display ?? [request.command, ...(request.args ?? [])].join(' ');
    return this.serialised(async () => {
      const run = await this.run({
        commandLine: request.command,
        ...(request.args ? { args: request.args } : {}),
        ...(request.stdin !== undefined ? { stdin: Buffer.from(request.stdin) } : {}),
        ...(request.timeoutMs !== undefined ? { timeoutMs: request.timeoutMs } : {}),
        ...(request.signal ? { signal: request.signal } : {}),
        ...streamOutput(request.onOutput),
      });
      return toResult(this.host, display, run, false);
    });
  }

  /**
   * Copies a file to the host in base64 chunks over stdin; the far side checks SHA-256 with
   * Get-FileHash before moving the file into place. `mode` has no meaning on Windows and is ignored.
   */
  put(request: PutRequest): Promise<CommandResult> {
    return this.serialised(() => putFile((o) => this.run(o), this.host, request));
  }

  /** Fetches a file as base64 lines; checks the SHA-256 the host reports against the bytes received. */
  get(request: GetRequest): Promise<CommandResult> {
    return this.serialised(() => getFile((o) => this.run(o), this.host, request));
  }

  /** Deletes the shell and closes the connection. Safe to call twice. */
  async close(): Promise<void> {
    await this.serialised(async () => {
      if (this.shell?.shellId) await this.shell.delete().catch(() => undefined);
      this.staleShellId = undefined;
      await this.channel?.close();
      this.channel = undefined;
      this.shell = undefined;
    });
  }
}

function isShellGone(error: WsmanFaultError): boolean {
  return (
    error.fault.wsmanCode === WSMAN_SHELL_NOT_FOUND || /InvalidSelectors$/.test(error.fault.subcode ?? '')
  );
}

function describe(error: unknown, phase: string): string {
  if (error instanceof ConnectionError) return error.message;
  if (error instanceof Error) return `WinRM ${phase} failed: ${error.message}`;
  return `WinRM ${phase} failed: ${String(error)}`;
}
