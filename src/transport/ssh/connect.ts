import { connect as netConnect, type Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { AnyAuthMethod, Client, ParsedKey } from 'ssh2';
import { ConnectionError } from '../../errors/index.js';
import { coalesceWrites } from './coalesce-writes.js';
import { type HostKeyCheck, type HostKeyParams, hostKeyCheck } from './host-key-check.js';
import { knownKeyTypes } from './known-hosts.js';
import { ssh2 } from './ssh2-module.js';

/** Everything needed to open one authenticated connection (already resolved: no references left). */
export interface ConnectParams {
  /** Inventory name, for messages. */
  label: string;
  address: string;
  port: number;
  user: string;
  /** Parsed private keys, tried in order, with where each came from (for messages). */
  keys: { key: ParsedKey; source: string }[];
  /** ssh-agent socket to try after the keys. */
  agentSocket?: string;
  /** Password to try last (password, then keyboard-interactive: the prompts sshpass answers). */
  password?: Buffer;
  hostKeys: HostKeyParams;
  connectTimeoutMs: number;
  keepaliveIntervalMs: number;
  keepaliveCountMax: number;
  /** Jump host connection to tunnel through (ProxyJump). */
  via?: { client: Client; label: string };
}

const HOST_KEY_ALGOS: Record<string, string[]> = {
  'ssh-ed25519': ['ssh-ed25519'],
  'ecdsa-sha2-nistp256': ['ecdsa-sha2-nistp256'],
  'ecdsa-sha2-nistp384': ['ecdsa-sha2-nistp384'],
  'ecdsa-sha2-nistp521': ['ecdsa-sha2-nistp521'],
  'ssh-rsa': ['rsa-sha2-512', 'rsa-sha2-256', 'ssh-rsa'],
};
const DEFAULT_HOST_KEY_ORDER = Object.values(HOST_KEY_ALGOS).flat();

/** Host-key algorithms with the types known_hosts has for this host first, as OpenSSH orders them. */
export function hostKeyAlgorithms(known: string[]): string[] {
  const first = known.flatMap((t) => HOST_KEY_ALGOS[t] ?? []);
  return [...new Set([...first, ...DEFAULT_HOST_KEY_ORDER])];
}

/**
 * Password login as OpenSSH's client tries it last (PreferredAuthentications ends with
 * keyboard-interactive,password; ssh_config(5)): `password`, then `keyboard-interactive`
 * answering only prompts that ask for a password, as sshpass does (its default prompt match is
 * "assword"). Any other prompt (a one-time code) gets no answer and the login fails.
 */
function passwordMethods(username: string, password: string): AnyAuthMethod[] {
  return [
    { type: 'password', username, password },
    {
      type: 'keyboard-interactive',
      username,
      prompt: (_name, _instructions, _lang, prompts, finish) =>
        finish(prompts.map((p) => (/assword/.test(p.prompt) ? password : ''))),
    },
  ];
}

/** Errors from opening the TCP stream: retried by the caller with backoff. */
export class TransientConnectError extends ConnectionError {}

function tcpConnect(params: ConnectParams, deadline: number): Promise<Duplex> {
  const where = `${params.address}:${params.port}`;
  const via = params.via;
  if (via) {
    return new Promise((resolve, reject) => {
      // The jump host answers a channel open only when its own connect ends, which for a guest
      // still booting can take minutes (measured on the two-hypervisor e2e: one attempt never
      // returned): the attempt gets the same deadline as a direct connect, then is retried.
      let timedOut = false;
      const timer = setTimeout(
        () => {
          timedOut = true;
          reject(
            new TransientConnectError(
              params.label,
              `timed out after ${params.connectTimeoutMs} ms connecting to ${where} through jump host ${via.label}`,
            ),
          );
        },
        Math.max(1, deadline - Date.now()),
      );
      via.client.forwardOut('127.0.0.1', 0, params.address, params.port, (error, stream) => {
        clearTimeout(timer);
        if (timedOut) {
          stream?.destroy();
          return;
        }
        if (error) {
          reject(
            new TransientConnectError(
              params.label,
              `cannot reach ${where} through jump host ${via.label}: ${error.message}`,
            ),
          );
        } else {
          resolve(stream);
        }
      });
    });
  }
  return new Promise((resolve, reject) => {
    const socket: Socket = netConnect({ host: params.address, port: params.port });
    // Nagle + delayed ACK added ~40 ms to every channel open (RESEARCH.md): send small packets at once.
    socket.setNoDelay(true);
    const timer = setTimeout(
      () => {
        socket.destroy();
        reject(
          new TransientConnectError(
            params.label,
            `timed out after ${params.connectTimeoutMs} ms connecting to ${where}`,
          ),
        );
      },
      Math.max(1, deadline - Date.now()),
    );
    socket.once('connect', () => {
      clearTimeout(timer);
      socket.removeAllListeners('error');
      resolve(socket);
    });
    socket.once('error', (error: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      const what =
        error.code === 'ECONNREFUSED'
          ? 'connection refused'
          : error.code === 'EHOSTUNREACH' || error.code === 'ENETUNREACH'
            ? 'host unreachable'
            : error.message;
      reject(new TransientConnectError(params.label, `${what} (${where})`, { cause: error }));
    });
  });
}

/**
 * The login methods in the order OpenSSH tries them (keys, then the agent, then a password),
 * and their names for the "authentication failed (tried ...)" message.
 */
function authMethods(params: ConnectParams): { methods: AnyAuthMethod[]; tried: string[] } {
  const methods: AnyAuthMethod[] = params.keys.map((k) => ({
    type: 'publickey',
    username: params.user,
    key: k.key,
  }));
  if (params.agentSocket) methods.push({ type: 'agent', username: params.user, agent: params.agentSocket });
  if (params.password) methods.push(...passwordMethods(params.user, params.password.toString('utf8')));
  const tried = [
    ...params.keys.map((k) => `key ${k.source}`),
    ...(params.agentSocket ? ['ssh-agent'] : []),
    ...(params.password ? ['password'] : []),
  ];
  return { methods, tried };
}

/** What the SSH handshake needs once the stream is open and the login methods are known. */
interface HandshakeStage {
  params: ConnectParams;
  sock: Duplex;
  deadline: number;
  hostKeys: HostKeyCheck;
  methods: AnyAuthMethod[];
  tried: string[];
}

/**
 * The SSH handshake over an open stream: key exchange (host key checked), then login. Each way
 * it can end becomes one error kind, which decides whether the caller retries.
 */
function handshake(stage: HandshakeStage): Promise<Client> {
  const { params, sock, deadline, hostKeys, methods, tried } = stage;
  const where = `${params.address}:${params.port}`;
  const client = new (ssh2().Client)();
  const knownTypes = knownKeyTypes(params.hostKeys.entries, params.address, params.port);

  return new Promise<Client>((resolve, reject) => {
    let settled = false;
    const fail = (error: Error) => {
      if (settled) return;
      settled = true;
      client.end();
      sock.destroy();
      reject(error);
    };
    client.once('ready', () => {
      if (settled) return;
      settled = true;
      resolve(client);
    });
    client.on('error', (error: Error & { level?: string }) => {
      const problem = hostKeys.problem();
      if (problem) return fail(problem);
      if (error.level === 'client-authentication') {
        return fail(
          new ConnectionError(
            params.label,
            `authentication failed for ${params.user}@${where} (tried ${tried.join(', ')})`,
            {
              cause: error,
            },
          ),
        );
      }
      if (error.level === 'client-timeout') {
        return fail(
          new TransientConnectError(
            params.label,
            `timed out after ${params.connectTimeoutMs} ms waiting for the SSH handshake with ${where}`,
          ),
        );
      }
      fail(
        new TransientConnectError(params.label, `SSH handshake with ${where} failed: ${error.message}`, {
          cause: error,
        }),
      );
    });
    client.once('close', () => {
      const problem = hostKeys.problem();
      if (problem) return fail(problem);
      fail(
        new TransientConnectError(params.label, `${where} closed the connection during the SSH handshake`),
      );
    });
    coalesceWrites(sock);
    client.connect({
      sock,
      username: params.user,
      hostVerifier: hostKeys.verify,
      authHandler: methods,
      readyTimeout: Math.max(1, deadline - Date.now()),
      keepaliveInterval: params.keepaliveIntervalMs,
      keepaliveCountMax: params.keepaliveCountMax,
      algorithms: knownTypes.length ? { serverHostKey: hostKeyAlgorithms(knownTypes) as never } : {},
    });
  });
}

/**
 * Opens one authenticated SSH connection: TCP (TCP_NODELAY) or a tunnel through a jump host,
 * host key checked against known_hosts by our own code, then key/agent authentication.
 * Throws HostKeyError (never retry), ConnectionError for authentication failures (never retry)
 * and TransientConnectError for network problems (the caller may retry).
 */
export async function openConnection(params: ConnectParams): Promise<Client> {
  const deadline = Date.now() + params.connectTimeoutMs;
  const where = `${params.address}:${params.port}`;
  const sock = await tcpConnect(params, deadline);
  const { methods, tried } = authMethods(params);
  if (methods.length === 0) {
    sock.destroy();
    throw new ConnectionError(
      params.label,
      `no credentials to log in to ${where}: give a private key, a password or use the ssh-agent`,
    );
  }
  return handshake({ params, sock, deadline, hostKeys: hostKeyCheck(params), methods, tried });
}
