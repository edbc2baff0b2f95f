import type { Client, ClientChannel, ExecOptions, SFTPWrapper } from 'ssh2';
import { ConnectionError } from '../../errors/index.js';
import { ShellSession } from './shell-session.js';

/** Attempts after a refused channel open (20 ms doubling: about 1.3 s in all). */
const OPEN_RETRIES = 6;

/** One authenticated connection and the channels open on it. */
export interface PooledConnection {
  id: number;
  client: Client;
  /** Jump host connections this one tunnels through (closed with it). */
  jumps: Client[];
  /** Channels open (shells, exec, sftp): kept below sshd's MaxSessions. */
  channels: number;
  shells: number;
  alive: boolean;
  /** Why the connection ended, once it has. */
  lostReason?: string;
  sftp?: Promise<SFTPWrapper>;
}

/** A long-lived shell lent to one command at a time. */
export interface ShellLease {
  session: ShellSession;
  conn: PooledConnection;
}

/** How an exec channel ended: the exit status sshd sent, or the signal that killed the command. */
export interface ChannelExit {
  /** Exit status, or null when sshd sent none (or sent a signal instead). */
  code: number | null;
  /** Signal name as ssh2 reports it, e.g. `SIGKILL`. */
  signal?: string;
}

/** An open exec channel, the connection it lives on, and its end. */
export interface OpenedExec {
  channel: ClientChannel;
  conn: PooledConnection;
  /** Resolves when the channel closes, with the exit status the server sent before closing. */
  exited: Promise<ChannelExit>;
}

/** How the pool opens a connection (with the transport's retries, jump hosts, host-key checks). */
export type OpenConnection = () => Promise<{ client: Client; jumps: Client[] }>;

/**
 * The connections, channels and long-lived shells of one host. Channels per connection stay
 * below MaxSessions; shells leave two channels per connection for SFTP and exec (kills, fallback);
 * another connection opens when channels run out; callers beyond every limit queue.
 */
export class ConnectionPool {
  private readonly connections: PooledConnection[] = [];
  private opening = 0;
  private nextId = 1;
  private closed = false;
  private channelWaiters: (() => void)[] = [];
  private readonly idle: ShellLease[] = [];
  private shellCount = 0;
  private readonly shellWaiters: ((lease: ShellLease | undefined) => void)[] = [];

  constructor(
    private readonly options: {
      label: string;
      open: OpenConnection;
      maxShells: number;
      maxChannelsPerConnection: number;
      maxConnections: number;
      /** Called when a connection ends without close() (for messages). */
      onLost?: (conn: PooledConnection) => void;
    },
  ) {}

  /** True while at least one connection is up. */
  get connected(): boolean {
    return this.connections.some((c) => c.alive);
  }

  /** Opens the first connection (errors propagate: ConnectionError / HostKeyError). */
  async ensureConnected(): Promise<void> {
    if (this.closed) throw new ConnectionError(this.options.label, 'the transport was closed');
    if (!this.connected) await this.openOne();
  }

  private async openOne(): Promise<PooledConnection> {
    this.opening++;
    try {
      const { client, jumps } = await this.options.open();
      const conn: PooledConnection = {
        id: this.nextId++,
        client,
        jumps,
        channels: 0,
        shells: 0,
        alive: true,
      };
      if (this.closed) {
        client.end();
        for (const j of jumps) j.end();
        throw new ConnectionError(this.options.label, 'the transport was closed');
      }
      this.connections.push(conn);
      client.on('error', (error: Error) => {
        conn.lostReason ??= error.message;
      });
      client.on('close', () => this.onConnectionClosed(conn));
      return conn;
    } finally {
      this.opening--;
      this.wakeChannelWaiters();
    }
  }

  private onConnectionClosed(conn: PooledConnection): void {
    if (!conn.alive) return;
    conn.alive = false;
    conn.lostReason ??= 'the server closed the connection';
    for (const j of conn.jumps) j.end();
    const index = this.connections.indexOf(conn);
    if (index >= 0) this.connections.splice(index, 1);
    for (let i = this.idle.length - 1; i >= 0; i--) {
      if (this.idle[i]?.conn === conn) {
        this.idle.splice(i, 1);
        this.shellDropped();
      }
    }
    if (!this.closed) this.options.onLost?.(conn);
    this.wakeChannelWaiters();
  }

  private wakeChannelWaiters(): void {
    const waiters = this.channelWaiters;
    this.channelWaiters = [];
    for (const w of waiters) w();
  }

  /** Reserves one channel on a connection that has room, opening a connection when allowed. */
  private async acquireSlot(kind: 'shell' | 'other'): Promise<PooledConnection> {
    const max = this.options.maxChannelsPerConnection;
    const shellMax = Math.max(1, max - 2);
    for (;;) {
      if (this.closed) throw new ConnectionError(this.options.label, 'the transport was closed');
      const conn = this.connections.find(
        (c) => c.alive && c.channels < max && (kind !== 'shell' || c.shells < shellMax),
      );
      if (conn) {
        conn.channels++;
        if (kind === 'shell') conn.shells++;
        return conn;
      }
      if (this.connections.length + this.opening < this.options.maxConnections) {
        try {
          await this.openOne();
        } catch (error) {
          // With other connections up, wait for their channels instead of failing the command.
          if (!this.connected) throw error;
          await new Promise<void>((resolve) => this.channelWaiters.push(resolve));
        }
        continue;
      }
      await new Promise<void>((resolve) => this.channelWaiters.push(resolve));
    }
  }

  private releaseSlot(conn: PooledConnection, kind: 'shell' | 'other'): void {
    conn.channels--;
    if (kind === 'shell') conn.shells--;
    this.wakeChannelWaiters();
  }

  /**
   * Opens an exec channel (counted against the limits until it closes). Its end is watched from
   * the moment ssh2 hands it over: when the client's event loop runs late, the exit status and
   * the close can be parsed in the same turn as the exec reply, before the caller's continuation
   * attaches listeners, and an `exit` event emitted then is gone. ssh2 passes the exit status to
   * `close` as well (its README, "exec"), which is what `exited` reports.
   */
  async openExec(
    command: string,
    execOptions: ExecOptions = {},
    kind: 'shell' | 'other' = 'other',
  ): Promise<OpenedExec> {
    for (let attempt = 0; ; attempt++) {
      const conn = await this.acquireSlot(kind);
      try {
        const opened = await new Promise<{ channel: ClientChannel; exited: Promise<ChannelExit> }>(
          (resolve, reject) => {
            conn.client.exec(command, execOptions, (error, channel) => {
              if (error) return reject(error);
              const exited = new Promise<ChannelExit>((settle) => {
                channel.once('close', (code?: number | null, signal?: string) => {
                  this.releaseSlot(conn, kind);
                  settle(signal ? { code: null, signal } : { code: typeof code === 'number' ? code : null });
                });
              });
              resolve({ channel, exited });
            });
          },
        );
        return { ...opened, conn };
      } catch (error) {
        this.releaseSlot(conn, kind);
        // sshd frees a session slot only once it has reaped the session's process, a moment after
        // the channel closed: under churn it briefly refuses ("no more sessions"). Wait and retry.
        if (conn.alive && attempt < OPEN_RETRIES) {
          await new Promise((resolve) => setTimeout(resolve, 20 * 2 ** attempt));
          continue;
        }
        throw new ConnectionError(this.options.label, `cannot open a channel: ${(error as Error).message}`, {
          cause: error,
        });
      }
    }
  }

  /** Lends a long-lived shell: an idle one, a new one while under maxShells, or the next one released. */
  async acquireShell(): Promise<ShellLease> {
    for (;;) {
      const idle = this.idle.pop();
      if (idle) {
        if (idle.session.alive && idle.conn.alive) return idle;
        idle.session.close();
        this.shellDropped();
        continue;
      }
      if (this.closed) throw new ConnectionError(this.options.label, 'the transport was closed');
      if (this.shellCount < this.options.maxShells) {
        this.shellCount++;
        try {
          // `exec` keeps the login shell from lingering as an extra process.
          const { channel, conn } = await this.openExec('exec /bin/sh', {}, 'shell');
          return { session: ShellSession.attach(channel), conn };
        } catch (error) {
          this.shellDropped();
          throw error;
        }
      }
      const handed = await new Promise<ShellLease | undefined>((resolve) => this.shellWaiters.push(resolve));
      if (handed) return handed;
    }
  }

  /** Returns a shell after a command; a dead one is dropped and a waiter may open a new one. */
  releaseShell(lease: ShellLease): void {
    if (!lease.session.alive || !lease.conn.alive || this.closed) {
      lease.session.close();
      this.shellDropped();
      return;
    }
    const waiter = this.shellWaiters.shift();
    if (waiter) waiter(lease);
    else this.idle.push(lease);
  }

  private shellDropped(): void {
    this.shellCount--;
    this.shellWaiters.shift()?.(undefined);
  }

  /** The connection's SFTP session, opened once and kept (one channel). */
  async sftp(): Promise<SFTPWrapper> {
    await this.ensureConnected();
    const existing = this.connections.find((c) => c.alive && c.sftp);
    if (existing?.sftp) return existing.sftp;
    const conn = await this.acquireSlot('other');
    if (conn.sftp) {
      // Another caller started SFTP on this connection while we waited for the slot.
      this.releaseSlot(conn, 'other');
      return conn.sftp;
    }
    conn.sftp = new Promise<SFTPWrapper>((resolve, reject) => {
      conn.client.sftp((error, sftp) => {
        if (error) {
          this.releaseSlot(conn, 'other');
          conn.sftp = undefined;
          reject(
            new ConnectionError(this.options.label, `cannot start SFTP: ${error.message}`, { cause: error }),
          );
          return;
        }
        sftp.once('close', () => {
          conn.sftp = undefined;
          this.releaseSlot(conn, 'other');
        });
        resolve(sftp);
      });
    });
    return conn.sftp;
  }

  /** Closes every shell and connection; waiters fail with "closed". */
  close(): void {
    this.closed = true;
    for (const lease of this.idle.splice(0)) lease.session.close();
    for (const conn of this.connections.splice(0)) {
      conn.alive = false;
      conn.client.end();
      for (const j of conn.jumps) j.end();
    }
    for (const w of this.shellWaiters.splice(0)) w(undefined);
    this.wakeChannelWaiters();
  }
}
