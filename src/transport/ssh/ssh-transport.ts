import { ConnectionError } from '../../errors/index.js';
import type { CommandResult } from '../../types/command-result.js';
import { failedResult, succeededResult } from '../../types/command-result.js';
import type { ConnectionDetail, GetRequest, PutRequest, Transport } from '../types.js';
import { sshConnectionDetail } from './connection-detail.js';
import { ConnectionPool, type ShellLease } from './connection-pool.js';
import type { ExecContext, SshExecRequest } from './exec-context.js';
import { execFresh } from './exec-fresh.js';
import { execInShell } from './exec-in-shell.js';
import { openWithRetries } from './open-target.js';
import { PowerShellMode } from './powershell-mode.js';
import { type ResolvedTarget, resolveTarget, type SshTransportOptions } from './resolve-options.js';
import type { ShellCommand } from './shell-script.js';
import { SmartTransfer } from './smart-transfer.js';
import { getVerified, putVerified } from './verified-transfer.js';

export type { SshExecRequest } from './exec-context.js';

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
  /** How often close() ran: a connect under way when it changes was abandoned. */
  private closes = 0;
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

  /** Where and how it connects (-vvv), once connect() has resolved the target. */
  connectionDetail(): ConnectionDetail | undefined {
    return this.target ? sshConnectionDetail(this.target) : undefined;
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
    const closes = this.closes;
    const target = await resolveTarget(this.options);
    // close() ran while the options were resolved (key files, passphrase): no pool existed for it
    // to close, so this connect must not open one, or its connection outlives the transport (a
    // finished run's process then never exits).
    if (closes !== this.closes)
      throw new ConnectionError(this.host, 'the transport was closed while connecting');
    this.target = target;
    this.pool?.close();
    const pool = new ConnectionPool({
      label: this.host,
      open: () => openWithRetries(this.target!, this.options),
      maxShells: this.options.maxShells ?? 8,
      maxChannelsPerConnection: Math.min(this.options.maxChannelsPerConnection ?? 8, 9),
      maxConnections: this.options.maxConnections ?? 4,
      onLost: (conn) => {
        this.lastLoss = conn.lostReason;
      },
    });
    this.pool = pool;
    // From here close() closes this pool, and a connection that opens after it is ended.
    await pool.ensureConnected();
    this.lastLoss = undefined;
    if (this.powershell || closes !== this.closes) return;
    // Warm one shell so the first command does not pay for it; a host without /bin/sh still works.
    try {
      pool.releaseShell(await pool.acquireShell());
      this.shellUnavailable = false;
    } catch {
      this.shellUnavailable = true;
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
    const context: ExecContext = {
      host: this.host,
      endpoint: this.endpoint,
      target,
      pool,
      cmd,
      request,
      display,
      started,
    };
    if (request.pty || needsPassword || this.shellUnavailable) return execFresh(context, needsPassword);
    let lease: ShellLease;
    try {
      lease = await pool.acquireShell();
    } catch (error) {
      if (!pool.connected)
        return failedResult(display, (error as Error).message, Date.now() - started, this.host);
      // The connection is fine but no shell starts: fall back to a channel per command.
      return execFresh(context, false);
    }
    return execInShell(context, lease);
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
    this.closes++;
    const pool = this.pool;
    this.pool = undefined;
    // A connect still under way is abandoned: the next connect() starts afresh instead of waiting
    // on one that may never finish.
    this.connecting = undefined;
    pool?.close();
  }
}
