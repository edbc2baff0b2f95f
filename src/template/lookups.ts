import { readFileSync } from 'node:fs';
import { FilterError } from './filters.js';
import { resolveLocalFile } from './local-files.js';

/** Keyword arguments as nunjucks passes them: a last argument marked `__keywords`. */
type Keywords = Record<string, unknown> & { __keywords: true };

const isKeywords = (value: unknown): value is Keywords =>
  typeof value === 'object' && value !== null && Object.hasOwn(value, '__keywords');

function splitArguments(args: unknown[]): { terms: string[]; keywords: Record<string, unknown> } {
  const last = args.at(-1);
  const keywords = isKeywords(last) ? last : {};
  const terms = (isKeywords(last) ? args.slice(0, -1) : args).map(String);
  return { terms, keywords };
}

const describe = (kind: string, terms: string[]) =>
  `lookup('${kind}', ${terms.map((t) => `'${t}'`).join(', ')})`;

/**
 * `lookup('env', NAME...)`: the variables' values, joined by commas (ansible-core
 * lib/ansible/plugins/lookup/env.py). Ansible returns '' for an unset variable unless
 * `default=Undefined`; kubemix, where an undefined variable is always an error naming it, fails
 * unless a `default=` is given, so a missing password never turns into an empty one.
 */
function envLookup(terms: string[], keywords: Record<string, unknown>): string {
  return terms
    .map((term) => {
      const name = term.split(/\s+/)[0] ?? '';
      const value = process.env[name];
      if (value !== undefined) return value;
      if ('default' in keywords) return String(keywords['default']);
      throw new FilterError(`${describe('env', terms)}: environment variable ${name} is not set`);
    })
    .join(',');
}

/**
 * `lookup('file', PATH...)`: the files' contents, trailing whitespace stripped (`rstrip=True`,
 * `lstrip=False` by default), joined by commas (lib/ansible/plugins/lookup/file.py). A relative
 * path is found as copy and template find theirs (resolveLocalFile: `<playbook_dir>/files`, then
 * `<playbook_dir>`, then the working directory), Ansible's search path for a play.
 */
function fileLookup(terms: string[], keywords: Record<string, unknown>, playbookDir: unknown): string {
  return terms
    .map((term) => {
      const path = resolveLocalFile(term, { playbook_dir: playbookDir }, 'files');
      let text: string;
      try {
        text = readFileSync(path, 'utf8');
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code ?? String(error);
        throw new FilterError(`${describe('file', terms)}: cannot read ${path} (${code})`);
      }
      if (keywords['lstrip'] === true) text = text.trimStart();
      if (keywords['rstrip'] !== false) text = text.trimEnd();
      return text;
    })
    .join(',');
}

/**
 * Ansible's `lookup()` for templates: `env` and `file`, the two that need no network or plugin.
 * Called by nunjucks with the render context as `this` (for `playbook_dir`).
 */
export function lookup(
  this: { ctx?: Record<string, unknown> } | undefined,
  kind: unknown,
  ...args: unknown[]
) {
  const { terms, keywords } = splitArguments(args);
  const name = String(kind).replace(/^ansible\.builtin\./, '');
  if (name === 'env') return envLookup(terms, keywords);
  if (name === 'file') return fileLookup(terms, keywords, this?.ctx?.['playbook_dir']);
  throw new FilterError(`lookup plugin "${String(kind)}" is not supported (supported: env, file)`);
}
