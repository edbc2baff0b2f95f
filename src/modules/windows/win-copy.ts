import { basename } from 'node:path';
import { optionalBool, type RawArgs, rejectUnknown, requireString } from '../args.js';
import { parseCopySource, readCopySource } from '../copy-source.js';
import type { Module } from '../types.js';
import { installWindowsContent, type WindowsContentRequest } from './install-content.js';

/** Arguments of `win_copy`. */
export interface WinCopyArgs {
  dest: string;
  /** A controller-side file (relative to the playbook's files/ directory). */
  src?: string;
  content?: string;
  /** Replace a file whose content differs (default true); false only creates missing files. */
  force: boolean;
}

/** `win_copy`: places a local file or inline content on a Windows host, only when its SHA-1 differs. */
export const winCopyModule: Module<WinCopyArgs> = {
  name: 'win_copy',
  os: 'windows',
  parseArgs(raw: RawArgs) {
    rejectUnknown('win_copy', raw, ['dest', 'src', 'content', 'force']);
    const args: WinCopyArgs = {
      dest: requireString('win_copy', raw, 'dest'),
      force: optionalBool('win_copy', raw, 'force') ?? true,
    };
    return Object.assign(args, parseCopySource('win_copy', raw, { nullContent: 'absent' }));
  },
  *run(args, context) {
    const request: WindowsContentRequest = {
      module: 'win_copy',
      content: Buffer.from(args.content ?? '', 'utf8'),
      dest: args.dest,
      force: args.force,
    };
    if (args.src !== undefined) {
      const local = readCopySource('win_copy', args.src, context.vars);
      if ('failed' in local) return local.failed;
      request.content = local.content;
      request.srcName = basename(args.src);
      request.src = local.path;
    }
    return yield* installWindowsContent(request, context.checkMode);
  },
};
