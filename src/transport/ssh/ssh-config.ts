import { readFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import SSHConfig from 'ssh-config';

/** What an OpenSSH client config says about one host (only the options kubemix honours). */
export interface ResolvedSshConfig {
  /** Address to connect to (`HostName`, or the name itself). */
  hostName: string;
  user?: string;
  port?: number;
  /** `IdentityFile` values, `~` and `%h %u %r %d %%` expanded, in config order. */
  identityFiles: string[];
  /** `ProxyJump` hops, first hop first (`none` gives []). */
  proxyJump: JumpSpec[];
  /** `UserKnownHostsFile` values, expanded. */
  userKnownHostsFiles: string[];
  /** `IdentitiesOnly yes`: do not fall back to the agent. */
  identitiesOnly?: boolean;
}

/** One ProxyJump hop: `[user@]host[:port]`. */
export interface JumpSpec {
  host: string;
  user?: string;
  port?: number;
}

/** Parses a ProxyJump value (`[user@]host[:port][,...]`, IPv6 as `[addr]:port`). */
export function parseProxyJump(value: string): JumpSpec[] {
  if (!value || value.toLowerCase() === 'none') return [];
  return value.split(',').map((hop) => {
    let rest = hop.trim().replace(/^ssh:\/\//, '');
    const spec: JumpSpec = { host: '' };
    const at = rest.lastIndexOf('@');
    if (at >= 0) {
      spec.user = rest.slice(0, at);
      rest = rest.slice(at + 1);
    }
    const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(rest);
    if (bracketed) {
      spec.host = bracketed[1] ?? '';
      if (bracketed[2]) spec.port = Number(bracketed[2]);
    } else {
      const colon = rest.lastIndexOf(':');
      if (colon > 0 && rest.indexOf(':') === colon) {
        spec.host = rest.slice(0, colon);
        spec.port = Number(rest.slice(colon + 1));
      } else {
        spec.host = rest;
      }
    }
    return spec;
  });
}

function list(value: string | string[] | undefined): string[] {
  if (value === undefined) return [];
  return Array.isArray(value) ? value : [value];
}

function expandPath(path: string, tokens: { host: string; user: string }): string {
  const home = homedir();
  const expanded = path.replace(/%([%hurd])/g, (_, t: string) => {
    if (t === '%') return '%';
    if (t === 'h') return tokens.host;
    if (t === 'd') return home;
    return tokens.user;
  });
  return expanded === '~' ? home : expanded.replace(/^~\//, `${home}/`);
}

/**
 * Resolves one host name against ssh config text, OpenSSH style: the first value of each option
 * wins, `Host` patterns and negations as the `ssh-config` package matches them. `Match exec` is
 * never run.
 */
export function resolveSshConfigText(text: string, host: string): ResolvedSshConfig {
  const computed = SSHConfig.parse(text).compute(host, { ignoreCase: true, matchExec: false });
  const first = (key: string): string | undefined => list(computed[key])[0];
  const hostName = first('hostname')?.replace(/%h/g, host) ?? host;
  const user = first('user');
  const tokens = { host: hostName, user: user ?? process.env['USER'] ?? 'root' };
  const resolved: ResolvedSshConfig = {
    hostName,
    identityFiles: list(computed['identityfile']).map((p) => expandPath(p, tokens)),
    proxyJump: parseProxyJump(first('proxyjump') ?? ''),
    userKnownHostsFiles: list(computed['userknownhostsfile'])
      .flatMap((v) => v.split(/\s+/))
      .filter((v) => v && v !== 'none')
      .map((p) => expandPath(p, tokens)),
  };
  if (user !== undefined) resolved.user = user;
  const port = first('port');
  if (port !== undefined && /^\d+$/.test(port)) resolved.port = Number(port);
  const identitiesOnly = first('identitiesonly');
  if (identitiesOnly !== undefined) resolved.identitiesOnly = identitiesOnly.toLowerCase() === 'yes';
  return resolved;
}

/** The user's default client config path (`~/.ssh/config`). */
export function defaultSshConfigPath(): string {
  return `${homedir()}/.ssh/config`;
}

/**
 * Resolves a host name against an ssh config file. A missing file means "no config" (as for
 * OpenSSH); an unreadable one is an error naming the path.
 */
export async function resolveSshConfig(options: {
  host: string;
  configPath?: string;
}): Promise<ResolvedSshConfig> {
  const path = options.configPath ?? defaultSshConfigPath();
  let text = '';
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') {
      throw new Error(`cannot read ssh config ${path}: ${(error as Error).message}`);
    }
  }
  return resolveSshConfigText(text, options.host);
}
