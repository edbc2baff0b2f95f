import { constants } from 'node:os';
import type { Client, ClientChannel, PseudoTtyOptions } from 'ssh2';
import { ConnectionError } from '../../errors/index.js';
import type { CommandResult } from '../../types/command-result.js';
import { failedResult, succeededResult } from '../../types/command-result.js';
import type { ExecRequest, GetRequest, PutRequest, Transport } from '../types.js';
import { openConnection, TransientConnectError } from './connect.js';
import { type ChannelExit, ConnectionPool, type ShellLease } from './connection-pool.js';
import { type FramedOutcome, FrameReader } from './frame-reader.js';
import { PowerShellMode } from './powershell-mode.js';
import { type ResolvedTarget, resolveTarget, type SshTransportOptions } from './resolve-options.js';
import { execCommandLine, killScript, newToken, type ShellCommand, sudoMarkers } from './shell-script.js';
import { SmartTransfer } from './smart-transfer.js';
import { SudoGate } from './sudo-gate.js';
import { getVerified, putVerified } from './verified-transfer.js';

/** An exec request with the SSH-only extras. */
export interface SshExecRequest extends ExecRequest {
  /** Run on a fresh exec channel with a pseudo-terminal (stdout and stderr arrive merged). */
  pty?: boolean | PseudoTtyOptions;
}

/** After a kill, how long to wait for the command's trailer before giving up on its shell. */
const KILL_GRACE_MS = 5000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function signalName(status: number | null): string | undefined {
  if (status === null || status <= 128) return undefined;
  const number = status - 128;
  return Object.entries(constants.signals).find(([, n]) => n === number)?.[0];
}

/**
 * The SSH transport: one authenticated connection per host (more only when channels run out),
 * commands fed to long-lived `/bin/sh` sessions with framing, checksum-verified file transfers
 * (SFTP, else scp, else the shell). Exec channels per command remain for PTYs, become with a
 * password, and hosts where a shell cannot start.
 */
export class SshTransport implements Transport {
  readonly kind = 'ssh' as const;
  readonly host: string;
  private pool: ConnectionPool | undefined;
  private target: ResolvedTarget | undefined;
  private connecting: Promise<void> | undefined;
  private lastLoss: string | undefined;
  private shellUnavailable = false;

  constructor(private readonly options: SshTransportOptions) {
    if (!options.host) throw new TypeError('SshTransport: host is required');
    this.host = options.host;
    if (options.remoteShell === 'powershell')
      this.powershell = new PowerShellMode({
        host: this.host,
        ready: () => this.ready(),
        endpoint: () => this.endpoint,
      });
  }

  /** Set for Windows hosts (remoteShell powershell): exec/put/get go through PowerShell. */
  private readonly powershell: PowerShellMode | undefined;

  /** Where this transport connects, as `user@address:port` (after ssh config), once connected. */
  get endpoint(): string | undefined {
    const p = this.target?.params;
    return p ? `${p.user}@${p.address}:${p.port}` : undefined;
  }

  /**
   * Opens the connection (with retries and backoff on network errors) and one shell. Throws
   * ConnectionError (unreachable, refused, timed out, authentication failed), HostKeyError, or
   * SecretRefError for a credential reference that cannot be read.
   */
  async connect(): Promise<void> {
    if (this.pool?.connected) return;
    this.connecting ??= this.doConnect().finally(() => {
      this.connecting = undefined;
    });
    return this.connecting;
  }

  private async doConnect(): Promise<void> {
    this.target = await resolveTarget(this.options);
    this.pool?.close();
    const pool = new ConnectionPool({
      label: this.host,
      open: () => this.openWithRetries(),
      maxShells: this.options.maxShells ?? 8,
      maxChannelsPerConnection: Math.min(this.options.maxChannelsPerConnection ?? 8, 9),
      maxConnections: this.options.maxConnections ?? 4,
      onLost: (conn) => {
        this.lastLoss = conn.lostReason;
      },
    });
    this.pool = pool;
    await pool.ensureConnected();
    this.lastLoss = undefined;
    if (this.powershell) return;
    // Warm one shell so the first command does not pay for it; a host without /bin/sh still works.
    try {
      pool.releaseShell(await pool.acquireShell());
      this.shellUnavailable = false;
    } catch {
      this.shellUnavailable = true;
    }
  }

  private async openWithRetries(): Promise<{ client: Client; jumps: Client[] }> {
    const retries = this.options.retries ?? 2;
    let delay = this.options.retryDelayMs ?? 500;
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.openChain();
      } catch (error) {
        if (!(error instanceof TransientConnectError) || attempt >= retries) throw error;
        await sleep(delay);
        delay *= 2;
      }
    }
  }

  private async openChain(): Promise<{ client: Client; jumps: Client[] }> {
    const target = this.target!;
    const jumps: Client[] = [];
    try {
      let via: { client: Client; label: string } | undefined;
      for (const hop of target.jumps) {
        const client = await openConnection(via ? { ...hop, via } : hop);
        jumps.push(client);
        via = { client, label: `${hop.address}:${hop.port}` };
      }
      const client = await openConnection(via ? { ...target.params, via } : target.params);
      return { client, jumps };
    } catch (error) {
      for (const j of jumps) j.end();
      throw error;
    }
  }

  /** Connects if needed; a failure becomes a message instead of an exception. */
  private async ready(): Promise<ConnectionPool | string> {
    try {
      if (!this.pool?.connected) await this.connect();
      return this.pool!;
    } catch (error) {
      const lost = this.lastLoss ? ` (connection lost earlier: ${this.lastLoss})` : '';
      return `${(error as Error).message}${lost}`;
    }
  }

  async exec(request: SshExecRequest): Promise<CommandResult> {
    if (this.powershell) return this.powershell.exec(request);
    const started = Date.now();
    const display = request.display ?? request.command;
    const becomeUser = request.become
      ? (typeof request.become === 'object' && request.become.user) || 'root'
      : undefined;
    const cmd: ShellCommand = { command: request.command };
    if (request.env) cmd.env = request.env;
    if (request.cwd !== undefined) cmd.cwd = request.cwd;
    if (request.signal?.aborted) return failedResult(display, 'cancelled before it started', 0, this.host);
    const pool = await this.ready();
    if (typeof pool === 'string') return failedResult(display, pool, Date.now() - started, this.host);
    const target = this.target!;
    // Becoming the login user needs no sudo (root on lab hosts has nothing to become).
    if (becomeUser !== undefined && becomeUser !== target.user) cmd.becomeUser = becomeUser;
    const needsPassword = cmd.becomeUser !== undefined && target.becomePassword !== undefined;
    if (request.pty || needsPassword || this.shellUnavailable) {
      return this.execFresh(pool, cmd, request, display, started, needsPassword);
    }
    let lease: ShellLease;
    try {
      lease = await pool.acquireShell();
    } catch (error) {
      if (!pool.connected)
        return failedResult(display, (error as Error).message, Date.now() - started, this.host);
      // The connection is fine but no shell starts: fall back to a channel per command.
      return this.execFresh(pool, cmd, request, display, started, false);
    }
    return this.execInShell(pool, lease, cmd, request, display, started);
  }

  private async execInShell(
    pool: ConnectionPool,
    lease: ShellLease,
    cmd: ShellCommand,
    request: SshExecRequest,
    display: string,
    started: number,
  ): Promise<CommandResult> {
    const stdin = request.stdin === undefined ? undefined : Buffer.from(request.stdin);
    const runOptions: Parameters<typeof lease.session.run>[1] = {};
    if (stdin) runOptions.stdin = stdin;
    if (request.onOutput) runOptions.onOutput = request.onOutput;
    const run = lease.session.run(cmd, runOptions);
    const target = async () => ({ pid: await lease.session.shellPid, childrenOnly: true });
    const stop = this.stopper(pool, target, cmd, () => lease.session.close(), request);
    const outcome = await run.outcome;
    await stop.finish();
    pool.releaseShell(lease);
    if (outcome.kind === 'lost') {
      const why = lease.conn.alive
        ? `the remote shell ended unexpectedly (${outcome.reason})`
        : `connection to ${this.host} (${this.endpoint}) was lost while the command ran: ${lease.conn.lostReason ?? outcome.reason}`;
      return this.result(display, outcome, started, { ...stop.state, lost: why });
    }
    return this.result(display, outcome, started, stop.state);
  }

  /** A fresh exec channel for one command: PTYs, become with a password, hosts without a usable shell. */
  private async execFresh(
    pool: ConnectionPool,
    cmd: ShellCommand,
    request: SshExecRequest,
    display: string,
    started: number,
    withPassword: boolean,
  ): Promise<CommandResult> {
    const token = newToken();
    const readerOptions: ConstructorParameters<typeof FrameReader>[1] = { trailers: false };
    if (request.onOutput) readerOptions.onOutput = request.onOutput;
    const reader = new FrameReader(token, readerOptions);
    let channel: ClientChannel;
    let exited: Promise<ChannelExit>;
    let connAlive: () => boolean;
    let lostReason: () => string | undefined;
    try {
      const opened = await pool.openExec(
        execCommandLine(cmd, token, withPassword),
        // A PTY would echo the password: the password path never gets one.
        request.pty && !withPassword ? { pty: request.pty === true ? {} : request.pty } : {},
      );
      channel = opened.channel;
      exited = opened.exited;
      connAlive = () => opened.conn.alive;
      lostReason = () => opened.conn.lostReason;
    } catch (error) {
      return failedResult(display, (error as Error).message, Date.now() - started, this.host);
    }
    let exit: ChannelExit = { code: null };
    const stdin = request.stdin === undefined ? undefined : Buffer.from(request.stdin);
    const gate = withPassword
      ? new SudoGate(sudoMarkers(token), {
          onPrompt: (n) => {
            if (n === 1) channel.write(Buffer.concat([this.target!.becomePassword!, Buffer.from('\n')]));
            else channel.end();
          },
          onStarted: () => {
            if (stdin) channel.write(stdin);
            channel.end();
          },
          pass: (data) => reader.pushStderr(data),
        })
      : undefined;
    const done = new Promise<void>((resolve) => {
      channel.on('data', (data: Buffer) => reader.pushStdout(data));
      channel.stderr.on('data', (data: Buffer) => (gate ? gate.push(data) : reader.pushStderr(data)));
      void exited.then((end) => {
        exit = end;
        gate?.end();
        reader.end();
        resolve();
      });
    });
    const target = async () => ({ pid: await reader.waitForPid(), childrenOnly: false });
    const stop = this.stopper(pool, target, cmd, () => channel.close(), request);
    // With a become password, the gate writes the password (never in the command line) and stdin.
    if (!gate) {
      if (stdin) channel.write(stdin);
      if (!request.pty || stdin) channel.end();
    }
    await done;
    await stop.finish();
    const outcome: FramedOutcome = { ...reader.outcome(), exitCode: exit.code };
    if (!connAlive()) {
      return this.result(display, outcome, started, {
        ...stop.state,
        lost: `connection to ${this.host} (${this.endpoint}) was lost while the command ran: ${lostReason() ?? 'closed'}`,
      });
    }
    const result = this.result(display, outcome, started, stop.state);
    if (exit.signal && !result.signal) result.signal = exit.signal;
    if (exit.code === null && !exit.signal && !stop.state.timedOut && !stop.state.cancelled) {
      result.failed = true;
      result.stderr += `${result.stderr && !result.stderr.endsWith('\n') ? '\n' : ''}the channel closed without an exit status`;
    }
    return result;
  }

  /**
   * Timeout and abort handling: kill the command's process group over another channel. finish()
   * resolves once the kill script is done (the group is gone), so a timed-out result means dead.
   */
  private stopper(
    pool: ConnectionPool,
    target: () => Promise<{ pid: number | undefined; childrenOnly: boolean }>,
    cmd: ShellCommand,
    abandon: () => void,
    request: SshExecRequest,
  ): { state: { timedOut: boolean; cancelled: boolean }; finish: () => Promise<void> } {
    const state = { timedOut: false, cancelled: false };
    let graceTimer: NodeJS.Timeout | undefined;
    let killed: Promise<void> | undefined;
    const kill = async () => {
      // If the kill cannot end the command, give up on its shell or channel after a grace period.
      graceTimer = setTimeout(abandon, KILL_GRACE_MS);
      const { pid, childrenOnly } = await target();
      if (pid === undefined) return;
      const asRoot = cmd.becomeUser !== undefined && this.target?.user !== 'root';
      try {
        const { channel } = await pool.openExec(killScript(pid, { asRoot, childrenOnly }));
        channel.stderr.resume();
        await new Promise<void>((resolve) => {
          channel.on('close', () => resolve());
          channel.resume();
        });
      } catch {
        abandon();
      }
    };
    const start = () => {
      killed ??= kill();
    };
    const timer =
      request.timeoutMs === undefined
        ? undefined
        : setTimeout(() => {
            state.timedOut = true;
            start();
          }, request.timeoutMs);
    const onAbort = () => {
      if (state.timedOut || state.cancelled) return;
      state.cancelled = true;
      start();
    };
    request.signal?.addEventListener('abort', onAbort, { once: true });
    return {
      state,
      finish: async () => {
        if (timer) clearTimeout(timer);
        request.signal?.removeEventListener('abort', onAbort);
        if (killed) await Promise.race([killed, sleep(KILL_GRACE_MS)]);
        if (graceTimer) clearTimeout(graceTimer);
      },
    };
  }

  private result(
    display: string,
    outcome: FramedOutcome,
    started: number,
    state: { timedOut: boolean; cancelled: boolean; lost?: string },
  ): CommandResult {
    const stopped = state.timedOut || state.cancelled;
    const result: CommandResult = {
      command: display,
      exitCode: stopped || state.lost ? null : outcome.exitCode,
      stdout: outcome.stdout.toString('utf8'),
      stderr: outcome.stderr.toString('utf8'),
      durationMs: Date.now() - started,
      failed: false,
      timedOut: state.timedOut,
      host: this.host,
    };
    const note = (line: string) => {
      result.stderr += `${result.stderr && !result.stderr.endsWith('\n') ? '\n' : ''}${line}`;
    };
    if (stopped) {
      const signal = signalName(outcome.exitCode);
      if (signal) result.signal = signal;
      note(
        state.timedOut
          ? `${this.host}: timed out after ${Date.now() - started} ms; the command was killed`
          : `${this.host}: cancelled; the command was killed`,
      );
    }
    if (state.lost) note(state.lost);
    result.failed = stopped || state.lost !== undefined || result.exitCode !== 0;
    return result;
  }

  /** Runs a helper command (mkdir, sha256sum, mv, the pipe method's cat and dd) on the host for put/get. */
  private runHelper = (command: string, stdin?: Buffer): Promise<CommandResult> =>
    this.exec(stdin === undefined ? { command } : { command, stdin });

  /** SFTP, else scp, else the shell: what this connection offers, remembered (smart-transfer.ts). */
  private readonly transfers = new SmartTransfer();

  async put(request: PutRequest): Promise<CommandResult> {
    if (this.powershell) return this.powershell.put(request);
    const started = Date.now();
    const command = `put ${request.localPath ?? '<content>'} -> ${request.remotePath}`;
    return this.transfer(command, started, (pool) =>
      this.transfers.run(pool, this.runHelper, (method) => putVerified(method, this.runHelper, request)),
    );
  }

  async get(request: GetRequest): Promise<CommandResult> {
    if (this.powershell) return this.powershell.get(request);
    const started = Date.now();
    const command = `get ${request.remotePath} -> ${request.localPath}`;
    return this.transfer(command, started, (pool) =>
      this.transfers.run(pool, this.runHelper, (method) => getVerified(method, this.runHelper, request)),
    );
  }

  private async transfer(
    command: string,
    started: number,
    work: (pool: ConnectionPool) => Promise<string | undefined>,
  ): Promise<CommandResult> {
    const pool = await this.ready();
    if (typeof pool === 'string') return failedResult(command, pool, Date.now() - started, this.host);
    let problem: string | undefined;
    try {
      problem = await work(pool);
    } catch (error) {
      problem =
        error instanceof ConnectionError ? error.message : `${this.host}: ${(error as Error).message}`;
    }
    if (problem) return failedResult(command, problem, Date.now() - started, this.host);
    return succeededResult(command, Date.now() - started, this.host);
  }

  /** Closes shells and connections; a later connect() or exec() opens them again. */
  async close(): Promise<void> {
    const pool = this.pool;
    this.pool = undefined;
    // A connect still under way is abandoned: the next connect() starts afresh instead of waiting
    // on one that may never finish.
    this.connecting = undefined;
    pool?.close();
  }
}
