import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { homedir, userInfo } from 'node:os';
import type { ParsedKey } from 'ssh2';
import { ConnectionError } from '../../errors/index.js';
import type { HostCredentials } from '../../types/inventory.js';
import type { ConnectParams } from './connect.js';
import type { HostKeyParams } from './host-key-check.js';
import { type KnownHostEntry, parseKnownHosts } from './known-hosts.js';
import { describeSecretRef, resolveSecret, type SecretInput } from './secrets.js';
import {
  defaultSshConfigPath,
  type JumpSpec,
  parseProxyJump,
  type ResolvedSshConfig,
  resolveSshConfig,
} from './ssh-config.js';
import { ssh2 } from './ssh2-module.js';

/** Options of an {@link SshTransport}: one host, how to reach it, how to trust it, how to log in. */
export interface SshTransportOptions {
  /** Inventory name (used in messages and results). */
  host: string;
  /** Address or name to connect to; ssh config `HostName` applies to it. Default: `host`. */
  address?: string;
  /** Overrides ssh config `Port`. Default 22. */
  port?: number;
  /** Login user. Default: credentials.user, then ssh config `User`, then the local user name. */
  user?: string;
  /** Inventory credentials; references are resolved at connect time. */
  credentials?: HostCredentials;
  /** A private key (reference, or a value the caller resolved). Wins over credentials.privateKey. */
  privateKey?: SecretInput;
  /** Passphrase of the private key(s). */
  passphrase?: SecretInput;
  /** Use the ssh-agent: true for $SSH_AUTH_SOCK, or a socket path. */
  agent?: boolean | string;
  /** sudo password for become (commands then use `sudo -S` on a fresh exec channel). */
  becomePassword?: SecretInput;
  /** Password login to the target (Ansible's ansible_ssh_pass): tried after keys and the agent, as OpenSSH does. */
  password?: SecretInput;
  /** known_hosts files to trust. Default: ssh config UserKnownHostsFile, else ~/.ssh/known_hosts. */
  knownHostsFiles?: string[];
  /** strict (default): unknown hosts are refused. accept-new: record unknown keys, then enforce. */
  hostKeyPolicy?: 'strict' | 'accept-new';
  /** Where accept-new records keys (the cluster's own known_hosts). Default: the first known_hosts file. */
  acceptNewFile?: string;
  /** ssh client config to honour (Host, HostName, User, Port, IdentityFile, ProxyJump). Default ~/.ssh/config; false for none. */
  sshConfigPath?: string | false;
  /** Jump hosts, `[user@]host[:port][,...]` (ProxyJump syntax). Default: ssh config ProxyJump. */
  jump?: string;
  /**
   * Jump hosts with their own login and known_hosts (a hypervisor in front of the guests kubemix
   * made on it): their host keys are always checked strictly. Wins over `jump`.
   */
  jumpHosts?: SshJumpHost[];
  /** Limit for TCP connect + SSH handshake + authentication. Default 10 000 ms. */
  connectTimeoutMs?: number;
  /** SSH keepalive interval. Default 15 000 ms. */
  keepaliveIntervalMs?: number;
  /** Unanswered keepalives before the connection counts as lost. Default 3. */
  keepaliveCountMax?: number;
  /** Extra attempts for the initial connect on network errors (never for auth or host-key failures). Default 2. */
  retries?: number;
  /** First retry delay, doubled each attempt. Default 500 ms. */
  retryDelayMs?: number;
  /** Long-lived shells kept per host (concurrent commands beyond this queue). Default 8. */
  maxShells?: number;
  /** Channels per connection, below sshd's MaxSessions (10). Default 8. */
  maxChannelsPerConnection?: number;
  /** Connections per host (more are opened when channels run out). Default 4. */
  maxConnections?: number;
  /**
   * The remote shell. `sh` (default): commands run in long-lived /bin/sh sessions. `powershell`:
   * Windows OpenSSH hosts; each command runs as `powershell -EncodedCommand` on its own exec
   * channel, files are copied with PowerShell scripts (see powershell-mode.ts).
   */
  remoteShell?: 'sh' | 'powershell';
}

/** A jump host that logs in with its own credentials (see SshTransportOptions.jumpHosts). */
export interface SshJumpHost {
  /** Inventory name, for messages. */
  host: string;
  address: string;
  port?: number;
  credentials?: HostCredentials;
  /** known_hosts files with its key. Default: ssh config UserKnownHostsFile, else ~/.ssh/known_hosts. */
  knownHostsFiles?: string[];
}

/** Options resolved at connect time: ssh config applied, secrets read, keys parsed. */
export interface ResolvedTarget {
  params: Omit<ConnectParams, 'via'>;
  /** Jump hops, first hop first, each fully resolved. */
  jumps: Omit<ConnectParams, 'via'>[];
  /** Login user on the target (decides whether become needs sudo). */
  user: string;
  becomePassword?: Buffer;
  /** The known_hosts files read for the target (shown by -vvv). */
  knownHostsFiles: string[];
}

function localUser(): string {
  try {
    return userInfo().username;
  } catch {
    return 'root';
  }
}

const DEFAULT_IDENTITIES = ['id_ed25519', 'id_ecdsa', 'id_rsa'].map((n) => `${homedir()}/.ssh/${n}`);

/**
 * The last parse of each known_hosts file, reused while the file's text is the same: every
 * connection reads the files, and parsing a file that lists every host of a big inventory once per
 * host made a run's cost grow with the square of its hosts.
 */
const parsedKnownHosts = new Map<string, { text: string; entries: KnownHostEntry[] }>();

async function readKnownHosts(files: string[]): Promise<KnownHostEntry[]> {
  const entries: KnownHostEntry[] = [];
  for (const file of files) {
    const text = await readFile(file, 'utf8').catch(() => '');
    let parsed = parsedKnownHosts.get(file);
    if (parsed?.text !== text) {
      parsed = { text, entries: parseKnownHosts(text, file) };
      parsedKnownHosts.set(file, parsed);
    }
    entries.push(...parsed.entries);
  }
  return entries;
}

function parseKey(data: Buffer, passphrase: Buffer | undefined, source: string, label: string): ParsedKey {
  const parsed = ssh2().utils.parseKey(data, passphrase);
  const key = Array.isArray(parsed) ? parsed[0] : parsed;
  if (key instanceof Error || key === undefined) {
    const why = key instanceof Error ? key.message : 'no key found';
    const hint = /passphrase/i.test(why)
      ? passphrase
        ? ' (wrong passphrase?)'
        : ' (the key is encrypted: give a passphrase)'
      : '';
    throw new ConnectionError(label, `cannot use private key from ${source}: ${why}${hint}`);
  }
  return key;
}

async function loadConfig(options: SshTransportOptions, name: string): Promise<ResolvedSshConfig> {
  if (options.sshConfigPath === false)
    return { hostName: name, identityFiles: [], proxyJump: [], userKnownHostsFiles: [] };
  const configPath = options.sshConfigPath ?? defaultSshConfigPath();
  try {
    return await resolveSshConfig({ host: name, configPath });
  } catch (error) {
    throw new ConnectionError(options.host, (error as Error).message);
  }
}

/** Keys to try: explicit key, else inventory key, else ssh config IdentityFile, else OpenSSH's defaults. */
async function loadKeys(
  options: SshTransportOptions,
  config: ResolvedSshConfig,
  passphrase: Buffer | undefined,
): Promise<{ key: ParsedKey; source: string }[]> {
  const explicit = options.privateKey ?? options.credentials?.privateKey;
  if (explicit !== undefined) {
    const source =
      typeof explicit === 'string' || Buffer.isBuffer(explicit)
        ? 'the given key'
        : describeSecretRef(explicit);
    const data = await resolveSecret(explicit, `${options.host}: privateKey`);
    return [{ key: parseKey(data, passphrase, source, options.host), source }];
  }
  const files = config.identityFiles.length > 0 ? config.identityFiles : DEFAULT_IDENTITIES;
  const keys: { key: ParsedKey; source: string }[] = [];
  for (const file of files) {
    // As OpenSSH: identity files that do not exist are skipped.
    if (!existsSync(file)) continue;
    const data = await readFile(file);
    keys.push({ key: parseKey(data, passphrase, `file ${file}`, options.host), source: `file ${file}` });
  }
  return keys;
}

function agentSocket(
  options: SshTransportOptions,
  config: ResolvedSshConfig,
  haveKeys: boolean,
): string | undefined {
  const wanted = options.agent ?? options.credentials?.agent;
  if (typeof wanted === 'string') return wanted;
  const sock = process.env['SSH_AUTH_SOCK'];
  if (wanted === true) {
    if (!sock)
      throw new ConnectionError(
        options.host,
        'ssh-agent authentication requested but SSH_AUTH_SOCK is not set',
      );
    return sock;
  }
  if (wanted === false || config.identitiesOnly || haveKeys) return undefined;
  return sock || undefined;
}

async function resolveHop(
  options: SshTransportOptions,
  name: string,
  overrides: { port?: number; user?: string },
  hostKeys: HostKeyParams,
  passphrase: Buffer | undefined,
  label: string,
): Promise<Omit<ConnectParams, 'via'> & { config: ResolvedSshConfig }> {
  const config = await loadConfig(options, name);
  const keys = await loadKeys(options, config, passphrase);
  const params: Omit<ConnectParams, 'via'> & { config: ResolvedSshConfig } = {
    label,
    address: config.hostName,
    port: overrides.port ?? config.port ?? 22,
    user: overrides.user ?? config.user ?? localUser(),
    keys,
    hostKeys,
    connectTimeoutMs: options.connectTimeoutMs ?? 10_000,
    keepaliveIntervalMs: options.keepaliveIntervalMs ?? 15_000,
    keepaliveCountMax: options.keepaliveCountMax ?? 3,
    config,
  };
  const agent = agentSocket(options, config, keys.length > 0);
  if (agent) params.agentSocket = agent;
  return params;
}

/** Applies ssh config, reads secrets and known_hosts, parses keys: everything connect needs. */
export async function resolveTarget(options: SshTransportOptions): Promise<ResolvedTarget> {
  const passphraseInput = options.passphrase ?? options.credentials?.passphrase;
  const passphrase =
    passphraseInput === undefined
      ? undefined
      : await resolveSecret(passphraseInput, `${options.host}: passphrase`);
  const address = options.address ?? options.host;
  const config = await loadConfig(options, address);
  const knownHostsFiles = options.knownHostsFiles ?? [
    ...(config.userKnownHostsFiles.length ? config.userKnownHostsFiles : [`${homedir()}/.ssh/known_hosts`]),
  ];
  const policy = options.hostKeyPolicy ?? 'strict';
  const recordFile = options.acceptNewFile ?? knownHostsFiles[0];
  const files =
    recordFile && !knownHostsFiles.includes(recordFile) ? [...knownHostsFiles, recordFile] : knownHostsFiles;
  const hostKeys: HostKeyParams = { entries: await readKnownHosts(files), policy };
  if (policy === 'accept-new' && recordFile) hostKeys.recordFile = recordFile;

  const overrides: { port?: number; user?: string } = {};
  if (options.port !== undefined) overrides.port = options.port;
  const user = options.user ?? options.credentials?.user;
  if (user !== undefined) overrides.user = user;
  const { config: _config, ...params } = await resolveHop(
    options,
    address,
    overrides,
    hostKeys,
    passphrase,
    options.host,
  );

  if (options.jumpHosts !== undefined) {
    const jumps: Omit<ConnectParams, 'via'>[] = [];
    for (const hop of options.jumpHosts) jumps.push(await resolveOwnHop(options, hop));
    return finishTarget(options, params, jumps, files);
  }
  const hops: JumpSpec[] = options.jump !== undefined ? parseProxyJump(options.jump) : config.proxyJump;
  const jumps: Omit<ConnectParams, 'via'>[] = [];
  for (const hop of hops) {
    const hopOverrides: { port?: number; user?: string } = {};
    if (hop.port !== undefined) hopOverrides.port = hop.port;
    const hopUser = hop.user ?? undefined;
    if (hopUser !== undefined) hopOverrides.user = hopUser;
    const { config: hopConfig, ...hopParams } = await resolveHop(
      options,
      hop.host,
      hopOverrides,
      hostKeys,
      passphrase,
      `${options.host} (jump host ${hop.host})`,
    );
    // A jump host without keys of its own in ssh config logs in with the target's keys.
    if (hopConfig.identityFiles.length === 0 && hopParams.keys.length === 0) hopParams.keys = params.keys;
    if (hop.user === undefined && hopConfig.user === undefined) hopParams.user = params.user;
    jumps.push(hopParams);
  }
  return finishTarget(options, params, jumps, files);
}

/** The target's password and sudo password, read last. */
async function finishTarget(
  options: SshTransportOptions,
  params: Omit<ConnectParams, 'via'>,
  jumps: Omit<ConnectParams, 'via'>[],
  knownHostsFiles: string[],
): Promise<ResolvedTarget> {
  if (options.password !== undefined)
    params.password = await resolveSecret(options.password, `${options.host}: password`);
  const target: ResolvedTarget = { params, jumps, user: params.user, knownHostsFiles };
  const becomeInput = options.becomePassword;
  if (becomeInput !== undefined)
    target.becomePassword = await resolveSecret(becomeInput, `${options.host}: becomePassword`);
  return target;
}

/**
 * A jump host with its own keys (its credentials, else its ssh config's or OpenSSH's default
 * identities), its own known_hosts and strict host-key checking: the target's trust-on-first-use
 * never extends to the hosts in front of it.
 */
async function resolveOwnHop(
  options: SshTransportOptions,
  hop: SshJumpHost,
): Promise<Omit<ConnectParams, 'via'>> {
  const label = `${options.host} (jump host ${hop.host})`;
  const hopOptions: SshTransportOptions = { host: hop.host };
  if (options.sshConfigPath !== undefined) hopOptions.sshConfigPath = options.sshConfigPath;
  if (hop.credentials) hopOptions.credentials = hop.credentials;
  const config = await loadConfig(hopOptions, hop.address);
  const files = hop.knownHostsFiles ?? [
    ...(config.userKnownHostsFiles.length ? config.userKnownHostsFiles : [`${homedir()}/.ssh/known_hosts`]),
  ];
  const hostKeys: HostKeyParams = { entries: await readKnownHosts(files), policy: 'strict' };
  const passphrase =
    hop.credentials?.passphrase === undefined
      ? undefined
      : await resolveSecret(hop.credentials.passphrase, `${hop.host}: passphrase`);
  const overrides: { port?: number; user?: string } = {};
  if (hop.port !== undefined) overrides.port = hop.port;
  if (hop.credentials?.user !== undefined) overrides.user = hop.credentials.user;
  const { config: _config, ...params } = await resolveHop(
    hopOptions,
    hop.address,
    overrides,
    hostKeys,
    passphrase,
    label,
  );
  return params;
}
