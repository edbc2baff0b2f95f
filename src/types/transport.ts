import type { CommandResult } from './command-result.js';

/** A chunk of live output from a running command. */
export interface OutputChunk {
  stream: 'stdout' | 'stderr';
  data: string;
}

/** What to run. Transports decide the shell: `/bin/sh -c` on POSIX hosts, PowerShell on Windows. */
export interface ExecRequest {
  /** The command line. */
  command: string;
  /** Shown instead of `command` in results and events (used to hide secrets passed inline). */
  display?: string;
  stdin?: string | Buffer;
  env?: Record<string, string>;
  cwd?: string;
  /** Run as another user (sudo on POSIX). */
  become?: boolean | { user?: string };
  /** Kills the command (not the connection) after this long; the result has timedOut=true. */
  timeoutMs?: number;
  /** Aborting kills the command; the result is failed. */
  signal?: AbortSignal;
  /** Live output, for engine events. */
  onOutput?: (chunk: OutputChunk) => void;
}

/** A file to place on a host: from memory or from a local path. */
export interface PutRequest {
  remotePath: string;
  content?: string | Buffer;
  localPath?: string;
  /** POSIX mode, e.g. 0o600. */
  mode?: number;
}

/** A file to fetch from a host into a local path. */
export interface GetRequest {
  remotePath: string;
  localPath: string;
}

/**
 * How a transport reaches its host, for `-vvv` and the event log (Ansible's connection detail).
 * Never a secret: a key is named by where it came from (`file /root/.ssh/id_ed25519`), a password
 * by the word `password`.
 */
export interface ConnectionDetail {
  transport: 'ssh' | 'winrm';
  address: string;
  port: number;
  user: string;
  /** Authentication, in the order it is tried: `key file /path`, `agent /socket`, `password`, `ntlm`... */
  auth: string[];
  /** How the host is checked: SSH host-key policy and files; WinRM scheme and certificate check. */
  hostCheck: string;
  /** Jump hosts in front of it, first hop first (`user@address:port`). */
  via?: string[];
}

/** What happened to a host's connection: opened, reused by a task, closed, or could not be opened. */
export type ConnectionState = 'opened' | 'reused' | 'closed' | 'failed';

/** A connection report, as the transport pool makes it and the engine emits it (`connection` events). */
export interface ConnectionReport {
  host: string;
  state: ConnectionState;
  /** Where and how (none when the transport never got as far as resolving it). */
  detail?: ConnectionDetail;
  /** Why a connect failed. */
  message?: string;
}

/**
 * One interface for every wire (local processes, SSH, WinRM). exec/put/get never throw for a
 * failure of the command itself: they return a CommandResult with failed=true. connect() throws
 * a ConnectionError when the host cannot be reached.
 */
export interface Transport {
  /** Inventory name of the host. */
  readonly host: string;
  readonly kind: 'local' | 'ssh' | 'winrm';
  connect(): Promise<void>;
  exec(request: ExecRequest): Promise<CommandResult>;
  put(request: PutRequest): Promise<CommandResult>;
  get(request: GetRequest): Promise<CommandResult>;
  close(): Promise<void>;
  /** Where and how it connects (once it has resolved that: after connect() began); none for local. */
  connectionDetail?(): ConnectionDetail | undefined;
}
