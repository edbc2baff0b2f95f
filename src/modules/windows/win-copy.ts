import { readFileSync, statSync } from 'node:fs';
import { basename } from 'node:path';
import { resolveLocalFile } from '../../template/local-files.js';
import { optionalBool, optionalString, type RawArgs, rejectUnknown, requireString } from '../args.js';
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
    const src = optionalString('win_copy', raw, 'src');
    const content = raw['content'];
    if ((src === undefined) === (content === undefined || content === null))
      throw new TypeError('win_copy: give exactly one of "src" or "content"');
    if (src !== undefined) args.src = src;
    else args.content = typeof content === 'string' ? content : JSON.stringify(content);
    return args;
  },
  *run(args, context) {
    const request: WindowsContentRequest = {
      module: 'win_copy',
      content: Buffer.from(args.content ?? '', 'utf8'),
      dest: args.dest,
      force: args.force,
    };
    if (args.src !== undefined) {
      const local = resolveLocalFile(args.src, context.vars, 'files');
      try {
        if (statSync(local).isDirectory())
          return {
            changed: false,
            failed: true,
            msg: `win_copy: ${local} is a directory; copying directories is not supported`,
          };
        request.content = readFileSync(local);
      } catch (error) {
        return {
          changed: false,
          failed: true,
          msg: `win_copy: cannot read ${local}: ${(error as Error).message}`,
        };
      }
      request.srcName = basename(args.src);
      request.src = local;
    }
    return yield* installWindowsContent(request, context.checkMode);
  },
};
