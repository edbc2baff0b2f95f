import {
  optionalBool,
  optionalMode,
  optionalString,
  type RawArgs,
  rejectUnknown,
  requireString,
} from '../args.js';
import { parseCopySource, readCopySource } from '../copy-source.js';
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
    return Object.assign(args, parseCopySource('copy', raw, { nullContent: 'json' }));
  },
  *run(args, context) {
    let content: Buffer;
    let srcName: string | undefined;
    if (args.src !== undefined) {
      const local = readCopySource('copy', args.src, context.vars);
      if ('failed' in local) return local.failed;
      content = local.content;
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
