import { createHash } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { join, posix } from 'node:path';
import { shQuote } from '../../quote/index.js';
import { optionalBool, rejectUnknown, requireString } from '../args.js';
import type { Module } from '../types.js';

/** Arguments of `fetch`: a remote file copied to the machine running kubemix. */
export interface FetchArgs {
  src: string;
  dest: string;
  flat: boolean;
  failOnMissing: boolean;
}

function localSha256(path: string): string | undefined {
  try {
    return createHash('sha256').update(readFileSync(path)).digest('hex');
  } catch {
    return undefined;
  }
}

/** True when only the owner may read the local file (the executor fetches files 0600). */
function ownerOnly(path: string): boolean {
  try {
    return (statSync(path).mode & 0o077) === 0;
  } catch {
    return false;
  }
}

/**
 * `fetch`: copies a remote file to `dest/<inventory_hostname>/<src>` (or to `dest` itself with
 * `flat: yes`), only when the local copy differs. Unlike Ansible's, the local copy is always
 * owner-only (0600, see executor/private-get.ts): fetched files are often credentials
 * (admin.conf); a copy others can read is fetched again.
 */
export const fetchModule: Module<FetchArgs> = {
  name: 'fetch',
  os: 'linux',
  parseArgs(raw) {
    rejectUnknown('fetch', raw, ['src', 'dest', 'flat', 'fail_on_missing', 'validate_checksum']);
    return {
      src: requireString('fetch', raw, 'src'),
      dest: requireString('fetch', raw, 'dest'),
      flat: optionalBool('fetch', raw, 'flat') ?? false,
      failOnMissing: optionalBool('fetch', raw, 'fail_on_missing') ?? true,
    };
  },
  *run(args, context) {
    const local = args.flat
      ? args.dest.endsWith('/')
        ? join(args.dest, posix.basename(args.src))
        : args.dest
      : join(args.dest, context.host.name, args.src);
    const probe = yield {
      kind: 'exec',
      command: `if [ -f ${shQuote(args.src)} ]; then sha256sum < ${shQuote(args.src)} | cut -d' ' -f1; else echo __KMX_MISSING__; fi`,
    };
    if (probe.failed)
      return { changed: false, failed: true, msg: `fetch: cannot read ${args.src}: ${probe.stderr.trim()}` };
    const remote = probe.stdout.trim();
    if (remote === '__KMX_MISSING__') {
      const msg = `the remote file does not exist: ${args.src}`;
      return args.failOnMissing
        ? { changed: false, failed: true, msg }
        : { changed: false, failed: false, msg, data: { file: args.src } };
    }
    const data = { dest: local, remote_checksum: remote, checksum: remote };
    if (localSha256(local) === remote && ownerOnly(local)) return { changed: false, failed: false, data };
    if (context.checkMode)
      return { changed: true, failed: false, msg: `would fetch ${args.src} to ${local}`, data };
    const got = yield { kind: 'get', remotePath: args.src, localPath: local };
    if (got.failed) return { changed: false, failed: true, msg: `fetch: ${got.stderr.trim()}`, data };
    const after = localSha256(local);
    if (after !== remote)
      return {
        changed: true,
        failed: true,
        msg: `fetch: checksum mismatch after transfer (${after} != ${remote})`,
        data,
      };
    return { changed: true, failed: false, data };
  },
};
