import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { renderString } from '../../template/index.js';
import { resolveLocalFile } from '../../template/local-files.js';
import { oneOf, optionalBool, type RawArgs, rejectUnknown, requireString } from '../args.js';
import type { Module } from '../types.js';
import { installWindowsContent } from './install-content.js';

/** Arguments of `win_template`. */
export interface WinTemplateArgs {
  src: string;
  dest: string;
  force: boolean;
  /** Line endings of the rendered file; Windows' `\r\n` by default, as in Ansible. */
  newlineSequence: '\r\n' | '\n' | '\r';
}

/** `win_template`: renders a local template with the host's variables and copies it (win_copy semantics). */
export const winTemplateModule: Module<WinTemplateArgs> = {
  name: 'win_template',
  os: 'windows',
  parseArgs(raw: RawArgs) {
    rejectUnknown('win_template', raw, ['src', 'dest', 'force', 'newline_sequence']);
    const newline = oneOf(
      'win_template',
      raw,
      'newline_sequence',
      ['\\r\\n', '\\n', '\\r', '\r\n', '\n', '\r'],
      '\\r\\n',
    );
    return {
      src: requireString('win_template', raw, 'src'),
      dest: requireString('win_template', raw, 'dest'),
      force: optionalBool('win_template', raw, 'force') ?? true,
      newlineSequence: newline
        .replace(/\\r/g, '\r')
        .replace(/\\n/g, '\n') as WinTemplateArgs['newlineSequence'],
    };
  },
  *run(args, context) {
    const local = resolveLocalFile(args.src, context.vars, 'templates');
    let rendered: string;
    try {
      const text = readFileSync(local, 'utf8');
      // Object.create keeps the scope's lazy variables lazy (a spread would render all of them).
      rendered = renderString(
        text,
        Object.assign(Object.create(context.vars) as Record<string, unknown>, { template_path: local }),
      );
    } catch (error) {
      return { changed: false, failed: true, msg: `win_template: ${local}: ${(error as Error).message}` };
    }
    const content = Buffer.from(rendered.replace(/\r\n|\r|\n/g, args.newlineSequence), 'utf8');
    return yield* installWindowsContent(
      {
        module: 'win_template',
        content,
        dest: args.dest,
        force: args.force,
        srcName: basename(args.src),
        src: local,
      },
      context.checkMode,
    );
  },
};
