import { appendFileSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { HostKeyError } from '../../errors/index.js';
import { formatKnownHostsLine, type KnownHostEntry, parseKnownHosts, verifyHostKey } from './known-hosts.js';

/** Host-key checking for one connection. */
export interface HostKeyParams {
  /** Entries from every known_hosts file (mutated: accept-new adds what it records). */
  entries: KnownHostEntry[];
  policy: 'strict' | 'accept-new';
  /** Where accept-new records new keys. */
  recordFile?: string;
}

/** The host an SSH connection goes to, as host-key checking needs it. */
export interface HostKeyTarget {
  /** Inventory name, for messages. */
  label: string;
  address: string;
  port: number;
  hostKeys: HostKeyParams;
}

/** ssh2's hostVerifier, and why it refused a key (ssh2 reports only that the handshake failed). */
export interface HostKeyCheck {
  verify: (key: Buffer) => boolean;
  /** The refusal to report instead of ssh2's own error, once verify has said no. */
  problem: () => HostKeyError | undefined;
}

/**
 * Host-key checking by our own code (ssh2 accepts every key unless told otherwise): a known key
 * passes; a revoked or changed key, or an unknown one under the strict policy, is refused with
 * the reason kept for the caller; accept-new records an unknown key in its file and passes.
 */
export function hostKeyCheck(params: HostKeyTarget): HostKeyCheck {
  const { hostKeys } = params;
  let hostKeyProblem: HostKeyError | undefined;
  const verify = (key: Buffer): boolean => {
    const check = verifyHostKey({
      entries: hostKeys.entries,
      host: params.address,
      port: params.port,
      key,
    });
    if (check.status === 'known') return true;
    if (check.status === 'revoked') {
      hostKeyProblem = new HostKeyError(
        params.label,
        `host key ${check.fingerprint} of ${check.lookupName} is marked @revoked in ${check.revokedAt?.file}:${check.revokedAt?.line}; refusing to connect`,
      );
      return false;
    }
    if (check.status === 'changed') {
      const expected = check.expected
        .map((e) => `${e.fingerprint} (${e.keyType}, ${e.file}:${e.line})`)
        .join(', ');
      hostKeyProblem = new HostKeyError(
        params.label,
        `host key for ${check.lookupName} has changed: known_hosts has ${expected}, the host presented ${check.fingerprint} (${check.keyType}); refusing to connect (someone may be intercepting, or the host was re-created: remove the old entry)`,
      );
      return false;
    }
    if (hostKeys.policy === 'accept-new' && hostKeys.recordFile) {
      try {
        mkdirSync(dirname(hostKeys.recordFile), { recursive: true, mode: 0o700 });
        appendFileSync(hostKeys.recordFile, `${formatKnownHostsLine(params.address, params.port, key)}\n`, {
          mode: 0o600,
        });
      } catch (error) {
        hostKeyProblem = new HostKeyError(
          params.label,
          `cannot record the host key of ${check.lookupName} in ${hostKeys.recordFile}: ${(error as Error).message}`,
        );
        return false;
      }
      hostKeys.entries.push(
        ...parseKnownHosts(formatKnownHostsLine(params.address, params.port, key), hostKeys.recordFile),
      );
      return true;
    }
    hostKeyProblem = new HostKeyError(
      params.label,
      `host key ${check.fingerprint} (${check.keyType}) for ${check.lookupName} is not in known_hosts and the host-key policy is strict; add it to known_hosts or use accept-new for hosts kubemix created`,
    );
    return false;
  };
  return { verify, problem: () => hostKeyProblem };
}
