import type { PseudoTtyOptions } from 'ssh2';
import type { ExecRequest } from '../types.js';
import type { ConnectionPool } from './connection-pool.js';
import type { ResolvedTarget } from './resolve-options.js';
import type { ShellCommand } from './shell-script.js';

/** An exec request with the SSH-only extras. */
export interface SshExecRequest extends ExecRequest {
  /** Run on a fresh exec channel with a pseudo-terminal (stdout and stderr arrive merged). */
  pty?: boolean | PseudoTtyOptions;
}

/** One command on its way to a connected host, as both exec paths (shell and fresh channel) take it. */
export interface ExecContext {
  /** Inventory name, for messages and results. */
  host: string;
  /** `user@address:port`, for the message when the connection drops. */
  endpoint: string | undefined;
  target: ResolvedTarget;
  pool: ConnectionPool;
  cmd: ShellCommand;
  request: SshExecRequest;
  /** What results show as the command. */
  display: string;
  /** Date.now() when exec was called. */
  started: number;
}

/** Whether killing the command needs sudo: it runs as another user and the login user is not root. */
export function asRoot(context: ExecContext): boolean {
  return context.cmd.becomeUser !== undefined && context.target.user !== 'root';
}
