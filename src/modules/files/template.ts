import { readFileSync } from 'node:fs';
import { renderString } from '../../template/index.js';
import { resolveLocalFile } from '../../template/local-files.js';
import { rejectUnknown, requireString } from '../args.js';
import type { Module } from '../types.js';
import { type CopyArgs, parseDestOptions, pickOwnership } from './copy.js';
import { installContent } from './install-content.js';

/** Arguments of `template`: a local nunjucks/Jinja template rendered with the host's variables. */
export interface TemplateArgs extends Omit<CopyArgs, 'content'> {
  src: string;
}

/** `template`: renders a local template with the host's variables, then copies it (copy semantics). */
export const templateModule: Module<TemplateArgs> = {
  name: 'template',
  os: 'linux',
  parseArgs(raw) {
    rejectUnknown('template', raw, ['dest', 'src', 'mode', 'owner', 'group', 'backup', 'force']);
    return { ...parseDestOptions('template', raw), src: requireString('template', raw, 'src') };
  },
  *run(args, context) {
    const local = resolveLocalFile(args.src, context.vars, 'templates');
    let text: string;
    try {
      text = readFileSync(local, 'utf8');
    } catch (error) {
      return {
        changed: false,
        failed: true,
        msg: `template: cannot read ${local}: ${(error as Error).message}`,
      };
    }
    let rendered: string;
    try {
      // Object.create keeps the scope's lazy variables lazy (a spread would render all of them).
      rendered = renderString(
        text,
        Object.assign(Object.create(context.vars) as Record<string, unknown>, { template_path: local }),
      );
    } catch (error) {
      return { changed: false, failed: true, msg: `template: ${local}: ${(error as Error).message}` };
    }
    const request = {
      module: 'template',
      content: Buffer.from(rendered, 'utf8'),
      dest: args.dest,
      backup: args.backup,
      force: args.force,
      ...pickOwnership(args),
    };
    return yield* installContent(request, context.checkMode);
  },
};
