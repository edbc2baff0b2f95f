import { createHash, createHmac, timingSafeEqual } from 'node:crypto';

/** One key line of a known_hosts file. */
export interface KnownHostEntry {
  /** `@revoked` keys are refused for every host, whatever the line's patterns (stricter than needed, never weaker); `@cert-authority` lines are kept but not used. */
  marker?: 'revoked' | 'cert-authority';
  /** Comma-separated host patterns (`*`, `?`, `!negation`, `[host]:port`), or null for a hashed entry. */
  patterns: string[] | null;
  /** Salt and HMAC-SHA1 of a hashed entry (`|1|salt|hmac`). */
  hashed?: { salt: Buffer; hash: Buffer };
  /** Key type as written, e.g. `ssh-ed25519`. */
  keyType: string;
  /** Public key blob (SSH wire format). */
  key: Buffer;
  /** Where the entry came from, for messages. */
  file: string;
  line: number;
}

/** Outcome of checking a presented host key. */
export interface HostKeyCheck {
  /**
   * `known`: an entry matches. `unknown`: no entry names this host. `changed`: the host is known
   * with other keys. `revoked`: the key is listed as @revoked.
   */
  status: 'known' | 'unknown' | 'changed' | 'revoked';
  /** The name looked up: `host`, or `[host]:port` when port is not 22. */
  lookupName: string;
  /** SHA256 fingerprint of the presented key (OpenSSH format). */
  fingerprint: string;
  keyType: string;
  /** For `changed`: the keys known_hosts has for this host (same key type first). */
  expected: { fingerprint: string; keyType: string; file: string; line: number }[];
  /** For `revoked`: where the revocation was found. */
  revokedAt?: { file: string; line: number };
}

/**
 * Parses known_hosts text. Comment, blank and malformed lines are skipped (OpenSSH does the same).
 * `@cert-authority` lines are parsed but ignored by {@link verifyHostKey}: kubemix does not
 * verify host certificates.
 */
export function parseKnownHosts(text: string, file = 'known_hosts'): KnownHostEntry[] {
  const entries: KnownHostEntry[] = [];
  const lines = text.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const line = (lines[i] ?? '').trim();
    if (!line || line.startsWith('#')) continue;
    const fields = line.split(/\s+/);
    let marker: KnownHostEntry['marker'];
    if (fields[0]?.startsWith('@')) {
      const m = fields.shift();
      if (m === '@revoked') marker = 'revoked';
      else if (m === '@cert-authority') marker = 'cert-authority';
      else continue;
    }
    const [hosts, keyType, keyBase64] = fields;
    if (!hosts || !keyType || !keyBase64) continue;
    const key = Buffer.from(keyBase64, 'base64');
    if (key.length === 0 || keyTypeOf(key) !== keyType) continue;
    const entry: KnownHostEntry = { patterns: null, keyType, key, file, line: i + 1 };
    if (marker) entry.marker = marker;
    if (hosts.startsWith('|1|')) {
      const [, , salt, hash] = hosts.split('|');
      if (!salt || !hash) continue;
      entry.hashed = { salt: Buffer.from(salt, 'base64'), hash: Buffer.from(hash, 'base64') };
    } else {
      entry.patterns = hosts.split(',').filter(Boolean);
    }
    entries.push(entry);
  }
  return entries;
}

/** The name OpenSSH looks up in known_hosts: `host` on port 22, `[host]:port` otherwise. */
export function knownHostsName(host: string, port = 22): string {
  return port === 22 ? host : `[${host}]:${port}`;
}

/** OpenSSH's fingerprint of a public key blob: `SHA256:` + unpadded base64 of its SHA-256. */
export function keyFingerprint(key: Buffer): string {
  return `SHA256:${createHash('sha256').update(key).digest('base64').replace(/=+$/, '')}`;
}

/** Key type named inside a public key blob (its first SSH string), or '' when malformed. */
export function keyTypeOf(key: Buffer): string {
  if (key.length < 4) return '';
  const len = key.readUInt32BE(0);
  if (len > 64 || 4 + len > key.length) return '';
  return key.subarray(4, 4 + len).toString('latin1');
}

/** A known_hosts line recording `key` for `host:port` (what accept-new appends). */
export function formatKnownHostsLine(host: string, port: number, key: Buffer): string {
  return `${knownHostsName(host, port)} ${keyTypeOf(key)} ${key.toString('base64')}`;
}

/**
 * The patterns compiled so far: each connection checks every entry of known_hosts, and compiling
 * them anew per connection made a run's cost grow with the square of its hosts.
 */
const compiledPatterns = new Map<string, RegExp>();
/**
 * A bound on what is kept: a process that lives long (the library in a CI service that builds
 * cluster after cluster, each with its own known_hosts) would otherwise keep every name it ever
 * met. Far above one run's needs (a host name and an address per host).
 */
export const MAX_COMPILED_PATTERNS = 4096;

function globToRegExp(pattern: string): RegExp {
  let re = compiledPatterns.get(pattern);
  if (!re) {
    if (compiledPatterns.size >= MAX_COMPILED_PATTERNS) compiledPatterns.clear();
    const body = pattern
      .replace(/[.+^${}()|[\]\\]/g, '\\$&')
      .replace(/\*/g, '.*')
      .replace(/\?/g, '.');
    re = new RegExp(`^${body}$`, 'i');
    compiledPatterns.set(pattern, re);
  }
  return re;
}

/** True when a known_hosts entry names `lookupName` (plain patterns with negation, or a hashed name). */
export function entryMatchesHost(entry: KnownHostEntry, lookupName: string): boolean {
  if (entry.hashed) {
    const { salt, hash } = entry.hashed;
    const mac = createHmac('sha1', salt).update(lookupName).digest();
    return mac.length === hash.length && timingSafeEqual(mac, hash);
  }
  let matched = false;
  for (const pattern of entry.patterns ?? []) {
    const negated = pattern.startsWith('!');
    const re = globToRegExp(negated ? pattern.slice(1) : pattern);
    if (re.test(lookupName)) {
      if (negated) return false;
      matched = true;
    }
  }
  return matched;
}

/**
 * Checks a presented host key against known_hosts entries, the way OpenSSH does: a revoked key is
 * refused whatever else matches; a matching key is known; a host with other keys has changed.
 */
export function verifyHostKey(options: {
  entries: KnownHostEntry[];
  host: string;
  port?: number;
  key: Buffer;
}): HostKeyCheck {
  const lookupName = knownHostsName(options.host, options.port ?? 22);
  const keyType = keyTypeOf(options.key);
  const check: HostKeyCheck = {
    status: 'unknown',
    lookupName,
    fingerprint: keyFingerprint(options.key),
    keyType,
    expected: [],
  };
  const forHost = options.entries.filter(
    (e) => e.marker !== 'cert-authority' && entryMatchesHost(e, lookupName),
  );
  const revoked = options.entries.find((e) => e.marker === 'revoked' && e.key.equals(options.key));
  if (revoked) {
    check.status = 'revoked';
    check.revokedAt = { file: revoked.file, line: revoked.line };
    return check;
  }
  const plain = forHost.filter((e) => e.marker === undefined);
  if (plain.some((e) => e.key.equals(options.key))) {
    check.status = 'known';
    return check;
  }
  if (plain.length > 0) {
    check.status = 'changed';
    check.expected = [...plain]
      .sort((a, b) => Number(b.keyType === keyType) - Number(a.keyType === keyType))
      .map((e) => ({ fingerprint: keyFingerprint(e.key), keyType: e.keyType, file: e.file, line: e.line }));
  }
  return check;
}

/** Key types known_hosts holds for a host, so the client can ask the server for one of those first. */
export function knownKeyTypes(entries: KnownHostEntry[], host: string, port = 22): string[] {
  const lookupName = knownHostsName(host, port);
  const types = entries
    .filter((e) => e.marker === undefined && entryMatchesHost(e, lookupName))
    .map((e) => e.keyType);
  return [...new Set(types)];
}
