import { createHash } from 'node:crypto';
import { posix } from 'node:path';
import { shQuote } from '../../quote/index.js';
import type { ModuleOutcome, ModuleRun } from '../types.js';

/** What copy and template place on a host. */
export interface InstallRequest {
  module: string;
  content: Buffer;
  dest: string;
  /** Basename used when dest is an existing directory (copy with src). */
  srcName?: string;
  mode?: string;
  owner?: string;
  group?: string;
  backup?: boolean;
  /** false: never replace an existing file. */
  force?: boolean;
}

interface RemoteState {
  path: string;
  exists: boolean;
  sha256?: string;
  mode?: string;
  owner?: string;
  group?: string;
}

/** One command that resolves the destination and reports its checksum, mode and owner. */
export function statCommand(dest: string, srcName?: string): string {
  const resolve = srcName
    ? `d=${shQuote(dest)}; if [ -d "$d" ]; then d="\${d%/}/"${shQuote(srcName)}; fi\n[ "$d" = ${shQuote(dest)} ] || echo ${INTO_DIR}`
    : `d=${shQuote(dest)}`;
  return [
    resolve,
    // printf, not echo: dash's echo would read backslashes in the path as escapes.
    `printf '__KMX_DEST__ %s\\n' "$d"`,
    `if [ -f "$d" ]; then printf '__KMX_STAT__ %s %s\\n' "$(sha256sum < "$d" | cut -d' ' -f1)" "$(stat -c '%a %U %G' "$d")";`,
    `elif [ -e "$d" ]; then echo "__KMX_NOT_FILE__"; else echo __KMX_ABSENT__; fi`,
  ].join('\n');
}

const INTO_DIR = '__KMX_INTO_DIR__';

/**
 * The path statCommand resolved: the printed line when it is one of the two possible paths,
 * else (a path with a newline prints over several lines) the one the into-directory marker names.
 */
function resolvedPath(printed: string, stdout: string, dest: string, srcName?: string): string {
  if (srcName === undefined) return dest;
  const inside = `${dest.replace(/\/$/, '')}/${srcName}`;
  if (printed === dest || printed === inside) return printed;
  return stdout.split('\n').includes(INTO_DIR) ? inside : dest;
}

/** Parses {@link statCommand} output for the destination it was built for. */
export function parseStat(stdout: string, dest: string, srcName?: string): RemoteState | 'not-file' {
  const printed = /^__KMX_DEST__ (.*)$/m.exec(stdout)?.[1];
  if (printed === undefined) throw new Error('unexpected output while inspecting the destination');
  const path = resolvedPath(printed, stdout, dest, srcName);
  if (stdout.includes('__KMX_NOT_FILE__')) return 'not-file';
  const stat = /^__KMX_STAT__ (\S+) (\S+) (\S+) (\S+)$/m.exec(stdout);
  if (!stat) return { path, exists: false };
  return { path, exists: true, sha256: stat[1]!, mode: stat[2]!, owner: stat[3]!, group: stat[4]! };
}

const ownerDiffers = (want: string | undefined, have: string | undefined) =>
  want !== undefined && want !== have;

/**
 * Places content on a host only when it differs (sha256 compared in the same round trip as
 * the mode and owner), through a temporary file renamed into place. Mode and owner are fixed
 * without rewriting the file when only they differ. Honest `changed`, check mode supported.
 */
export function* installContent(request: InstallRequest, checkMode: boolean): ModuleRun {
  const { module } = request;
  const sha256 = createHash('sha256').update(request.content).digest('hex');
  const probe = yield { kind: 'exec', command: statCommand(request.dest, request.srcName) };
  if (probe.failed)
    return {
      changed: false,
      failed: true,
      msg: `${module}: cannot inspect ${request.dest}: ${probe.stderr.trim() || probe.stdout.trim()}`,
    };
  const state = parseStat(probe.stdout, request.dest, request.srcName);
  if (state === 'not-file')
    return {
      changed: false,
      failed: true,
      msg: `${module}: ${request.dest} exists and is not a regular file`,
    };
  const data: Record<string, unknown> = { dest: state.path, checksum: sha256, size: request.content.length };
  const writeContent = !state.exists || (state.sha256 !== sha256 && request.force !== false);
  const mode = request.mode ?? (state.exists ? state.mode : undefined);
  const fixMode = request.mode !== undefined && request.mode !== state.mode;
  const fixOwner = ownerDiffers(request.owner, state.owner) || ownerDiffers(request.group, state.group);
  if (!writeContent && !fixMode && !fixOwner)
    return { changed: false, failed: false, data: { ...data, mode: state.mode } };
  if (checkMode) return { changed: true, failed: false, msg: `would update ${state.path}`, data };
  const steps: string[] = ['set -e'];
  const target = shQuote(state.path);
  if (writeContent) {
    const tmp = `${state.path}.kubemix-tmp`;
    if (request.backup && state.exists) {
      // The path stays single-quoted; only the date suffix is expanded.
      steps.push(
        `b=${target}".$(date +%Y-%m-%d@%H:%M:%S)~"; cp -p ${target} "$b"; printf '__KMX_BACKUP__ %s\\n' "$b"`,
      );
    }
    const put = yield { kind: 'put', remotePath: tmp, content: request.content };
    if (put.failed)
      return {
        changed: false,
        failed: true,
        msg: `${module}: writing ${state.path} failed: ${put.stderr.trim()}`,
        data,
      };
    steps.push(`mv -f ${shQuote(tmp)} ${target}`);
  }
  if (mode !== undefined && (writeContent || fixMode)) steps.push(`chmod ${mode} ${target}`);
  if (request.owner !== undefined || request.group !== undefined) {
    if (writeContent || fixOwner)
      steps.push(
        `chown ${shQuote(`${request.owner ?? ''}${request.group !== undefined ? `:${request.group}` : ''}`)} ${target}`,
      );
  }
  const apply = yield { kind: 'exec', command: steps.join('\n') };
  if (apply.failed)
    return {
      changed: true,
      failed: true,
      msg: `${module}: updating ${state.path} failed: ${apply.stderr.trim()}`,
      data,
    };
  const stamp = /^__KMX_BACKUP__ [\s\S]*?\.(\d{4}-\d\d-\d\d@\d\d:\d\d:\d\d)~$/m.exec(apply.stdout)?.[1];
  if (stamp) data['backup_file'] = `${state.path}.${stamp}~`;
  if (mode !== undefined) data['mode'] = mode;
  return { changed: true, failed: false, data } satisfies ModuleOutcome;
}

/** Basename of a local source, for copies into a directory. */
export const srcBasename = (src: string): string => posix.basename(src.replaceAll('\\', '/'));
