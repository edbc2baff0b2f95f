import { readFileSync, statSync } from 'node:fs';
import { resolveLocalFile } from '../template/local-files.js';
import { optionalString, type RawArgs } from './args.js';
import type { ModuleOutcome } from './types.js';

/** What copy and win_copy place on the host: a controller-side file or inline content, exactly one. */
export type CopySource = { src: string; content?: never } | { content: string; src?: never };

/**
 * Reads the source of copy or win_copy: exactly one of `src` (a controller-side file) or
 * `content` (text; other YAML values are written as JSON). `nullContent` says what
 * `content: null` means: `absent` (win_copy: as if not given) or `json` (copy: the text `null`).
 */
export function parseCopySource(
  module: 'copy' | 'win_copy',
  raw: RawArgs,
  options: { nullContent: 'absent' | 'json' },
): CopySource {
  const src = optionalString(module, raw, 'src');
  const content = raw['content'];
  const noContent = content === undefined || (options.nullContent === 'absent' && content === null);
  if ((src === undefined) === noContent)
    throw new TypeError(`${module}: give exactly one of "src" or "content"`);
  if (src !== undefined) return { src };
  return { content: typeof content === 'string' ? content : JSON.stringify(content) };
}

/**
 * The bytes of a copy/win_copy `src` (relative to the playbook's files/ directory), or the
 * failed outcome that says why it cannot be read (a directory, a missing file).
 */
export function readCopySource(
  module: 'copy' | 'win_copy',
  src: string,
  vars: Record<string, unknown>,
): { path: string; content: Buffer } | { failed: ModuleOutcome } {
  const path = resolveLocalFile(src, vars, 'files');
  try {
    if (statSync(path).isDirectory())
      return {
        failed: {
          changed: false,
          failed: true,
          msg: `${module}: ${path} is a directory; copying directories is not supported`,
        },
      };
    return { path, content: readFileSync(path) };
  } catch (error) {
    return {
      failed: {
        changed: false,
        failed: true,
        msg: `${module}: cannot read ${path}: ${(error as Error).message}`,
      },
    };
  }
}
