import { readFileSync, statSync } from 'node:fs';
import { resolveLocalFile } from '../../template/local-files.js';
import {
  optionalBool,
  optionalMode,
  optionalString,
  type RawArgs,
  rejectUnknown,
  requireString,
} from '../args.js';
import type { Module } from '../types.js';
import { installContent, srcBasename } from './install-content.js';

/** Arguments of `copy`. */
export interface CopyArgs {
  dest: string;
  /** Local file (relative to the playbook's files/ directory). */
  src?: string;
  content?: string;
  mode?: string;
  owner?: string;
  group?: string;
  backup: boolean;
  force: boolean;
}

/** Shared by copy and template: the destination options. */
export function parseDestOptions(module: string, raw: RawArgs): Omit<CopyArgs, 'src' | 'content'> {
  const args: Omit<CopyArgs, 'src' | 'content'> = {
    dest: requireString(module, raw, 'dest'),
    backup: optionalBool(module, raw, 'backup') ?? false,
    force: optionalBool(module, raw, 'force') ?? true,
  };
  const mode = optionalMode(module, raw);
  if (mode !== undefined) args.mode = mode;
  for (const key of ['owner', 'group'] as const) {
    const value = optionalString(module, raw, key);
    if (value !== undefined) args[key] = value;
  }
  return args;
}

/** `copy`: places a local file or inline content on the host, only when it differs. */
export const copyModule: Module<CopyArgs> = {
  name: 'copy',
  os: 'linux',
  parseArgs(raw) {
    rejectUnknown('copy', raw, ['dest', 'src', 'content', 'mode', 'owner', 'group', 'backup', 'force']);
    const args: CopyArgs = parseDestOptions('copy', raw);
    const src = optionalString('copy', raw, 'src');
    const content = raw['content'];
    if ((src === undefined) === (content === undefined))
      throw new TypeError('copy: give exactly one of "src" or "content"');
    if (src !== undefined) args.src = src;
    if (content !== undefined) args.content = typeof content === 'string' ? content : JSON.stringify(content);
    return args;
  },
  *run(args, context) {
    let content: Buffer;
    let srcName: string | undefined;
    if (args.src !== undefined) {
      const local = resolveLocalFile(args.src, context.vars, 'files');
      try {
        if (statSync(local).isDirectory())
          return {
            changed: false,
            failed: true,
            msg: `copy: ${local} is a directory; copying directories is not supported`,
          };
        content = readFileSync(local);
      } catch (error) {
        return {
          changed: false,
          failed: true,
          msg: `copy: cannot read ${local}: ${(error as Error).message}`,
        };
      }
      srcName = srcBasename(args.src);
    } else {
      content = Buffer.from(args.content ?? '', 'utf8');
    }
    const request = {
      module: 'copy',
      content,
      dest: args.dest,
      backup: args.backup,
      force: args.force,
      ...pick(args),
    };
    if (srcName !== undefined || args.dest.endsWith('/'))
      Object.assign(request, { srcName: srcName ?? 'content' });
    return yield* installContent(request, context.checkMode);
  },
};

function pick(
  args: Pick<CopyArgs, 'mode' | 'owner' | 'group'>,
): Partial<Pick<CopyArgs, 'mode' | 'owner' | 'group'>> {
  const out: Partial<Pick<CopyArgs, 'mode' | 'owner' | 'group'>> = {};
  if (args.mode !== undefined) out.mode = args.mode;
  if (args.owner !== undefined) out.owner = args.owner;
  if (args.group !== undefined) out.group = args.group;
  return out;
}

export { pick as pickOwnership };
