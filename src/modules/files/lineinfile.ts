import { shQuote } from '../../quote/index.js';
import {
  oneOf,
  optionalBool,
  optionalMode,
  optionalString,
  type RawArgs,
  rejectUnknown,
  requireString,
} from '../args.js';
import { parseReadFile, readFileCommand } from '../shell.js';
import type { Module } from '../types.js';

/** Arguments of `lineinfile`. */
export interface LineinfileArgs {
  path: string;
  state: 'present' | 'absent';
  line?: string;
  regexp?: string;
  /** `EOF` or a regular expression. */
  insertafter?: string;
  /** `BOF` or a regular expression. */
  insertbefore?: string;
  create: boolean;
  backrefs: boolean;
  firstmatch: boolean;
  mode?: string;
}

/** What an edit did, for messages. */
export type LineEdit = 'unchanged' | 'line added' | 'line replaced' | 'line removed';

function pyRegex(pattern: string): RegExp {
  return new RegExp(pattern.replace(/\(\?P</g, '(?<'));
}

function expandBackrefs(line: string, match: RegExpExecArray): string {
  return line.replace(/\\(\d+)|\\g<(\w+)>/g, (_m, n: string | undefined, name: string | undefined) =>
    n !== undefined
      ? (match[Number(n)] ?? '')
      : /^\d+$/.test(name!)
        ? (match[Number(name)] ?? '')
        : (match.groups?.[name!] ?? ''),
  );
}

function findIndex(lines: string[], test: (line: string) => boolean, first: boolean): number {
  if (first) return lines.findIndex(test);
  for (let i = lines.length - 1; i >= 0; i--) if (test(lines[i]!)) return i;
  return -1;
}

/**
 * Ansible's lineinfile on text (pure): replaces the last line matching `regexp` (or finds `line`
 * itself), inserts after/before a match or at EOF/BOF, or removes matching lines.
 */
export function editLines(
  text: string,
  args: LineinfileArgs,
): { text: string; edit: LineEdit; found: number } {
  const trailingNewline = text === '' || text.endsWith('\n');
  const lines = text === '' ? [] : text.replace(/\n$/, '').split('\n');
  const finish = (edit: LineEdit, found: number) => ({
    text:
      lines.length === 0 ? '' : `${lines.join('\n')}${trailingNewline || edit === 'line added' ? '\n' : ''}`,
    edit,
    found,
  });
  const regexp = args.regexp !== undefined ? pyRegex(args.regexp) : undefined;
  const matches = (line: string) => (regexp ? regexp.test(line) : line === args.line);

  if (args.state === 'absent') {
    const before = lines.length;
    const kept = lines.filter((line) => !matches(line));
    const removed = before - kept.length;
    lines.splice(0, lines.length, ...kept);
    return removed > 0 ? finish('line removed', removed) : { text, edit: 'unchanged', found: 0 };
  }

  const line = args.line ?? '';
  const index = regexp ? findIndex(lines, (l) => regexp.test(l), args.firstmatch) : -1;
  if (regexp && index >= 0) {
    const newLine = args.backrefs ? expandBackrefs(line, regexp.exec(lines[index]!)!) : line;
    if (lines[index] === newLine) return { text, edit: 'unchanged', found: 1 };
    lines[index] = newLine;
    return finish('line replaced', 1);
  }
  if (args.backrefs) return { text, edit: 'unchanged', found: 0 };
  if (lines.includes(line)) return { text, edit: 'unchanged', found: 1 };

  let at = lines.length;
  if (args.insertbefore !== undefined) {
    if (args.insertbefore === 'BOF') at = 0;
    else {
      const re = pyRegex(args.insertbefore);
      const i = findIndex(lines, (l) => re.test(l), args.firstmatch);
      if (i >= 0) at = i;
    }
  } else if (args.insertafter !== undefined && args.insertafter !== 'EOF') {
    const re = pyRegex(args.insertafter);
    const i = findIndex(lines, (l) => re.test(l), args.firstmatch);
    if (i >= 0) at = i + 1;
  }
  lines.splice(at, 0, line);
  return finish('line added', 0);
}

/** `lineinfile`: makes sure one line is present (or absent) in a text file. Reads and edits in kubemix, writes only on change. */
export const lineinfileModule: Module<LineinfileArgs> = {
  name: 'lineinfile',
  os: 'linux',
  parseArgs(raw: RawArgs) {
    rejectUnknown('lineinfile', raw, [
      'path',
      'dest',
      'name',
      'state',
      'line',
      'regexp',
      'regex',
      'insertafter',
      'insertbefore',
      'create',
      'backrefs',
      'firstmatch',
      'mode',
    ]);
    const args: LineinfileArgs = {
      path: requireString('lineinfile', { path: raw['path'] ?? raw['dest'] ?? raw['name'] }, 'path'),
      state: oneOf('lineinfile', raw, 'state', ['present', 'absent'] as const, 'present'),
      create: optionalBool('lineinfile', raw, 'create') ?? false,
      backrefs: optionalBool('lineinfile', raw, 'backrefs') ?? false,
      firstmatch: optionalBool('lineinfile', raw, 'firstmatch') ?? false,
    };
    const regexp = optionalString('lineinfile', raw, 'regexp') ?? optionalString('lineinfile', raw, 'regex');
    if (regexp !== undefined) args.regexp = regexp;
    for (const key of ['line', 'insertafter', 'insertbefore'] as const) {
      const value = optionalString('lineinfile', raw, key);
      if (value !== undefined) args[key] = value;
    }
    const mode = optionalMode('lineinfile', raw);
    if (mode !== undefined) args.mode = mode;
    if (args.state === 'present' && args.line === undefined)
      throw new TypeError('lineinfile: "line" is required with state=present');
    if (args.state === 'absent' && args.line === undefined && args.regexp === undefined)
      throw new TypeError('lineinfile: "line" or "regexp" is required with state=absent');
    if (args.insertafter !== undefined && args.insertbefore !== undefined)
      throw new TypeError('lineinfile: "insertafter" and "insertbefore" are mutually exclusive');
    for (const key of ['regexp', 'insertafter', 'insertbefore'] as const) {
      const value = args[key];
      if (value === undefined || value === 'EOF' || value === 'BOF') continue;
      try {
        pyRegex(value);
      } catch (error) {
        throw new TypeError(
          `lineinfile: "${key}" is not a valid regular expression: ${(error as Error).message}`,
        );
      }
    }
    return args;
  },
  *run(args, context) {
    const read = yield { kind: 'exec', command: readFileCommand(args.path) };
    if (read.failed)
      return {
        changed: false,
        failed: true,
        msg: `lineinfile: cannot read ${args.path}: ${read.stderr.trim()}`,
      };
    const file = parseReadFile(read.stdout);
    if (file.state === 'not-file')
      return { changed: false, failed: true, msg: `lineinfile: ${args.path} is not a regular file` };
    if (file.state === 'missing') {
      if (args.state === 'absent')
        return { changed: false, failed: false, msg: 'file not present', data: { found: 0 } };
      if (!args.create)
        return {
          changed: false,
          failed: true,
          msg: `Destination ${args.path} does not exist !`,
          data: { rc: 257 },
        };
    }
    const current = file.state === 'file' ? file.content : '';
    const { text, edit, found } = editLines(current, args);
    if (edit === 'unchanged' && file.state === 'file')
      return { changed: false, failed: false, data: { found } };
    if (context.checkMode) return { changed: true, failed: false, msg: `would: ${edit}`, data: { found } };
    const mode = args.mode ?? (file.state === 'file' ? file.mode : '644');
    const tmp = `${args.path}.kubemix-tmp`;
    const put = yield { kind: 'put', remotePath: tmp, content: text };
    if (put.failed)
      return {
        changed: false,
        failed: true,
        msg: `lineinfile: writing ${args.path} failed: ${put.stderr.trim()}`,
      };
    const move = yield {
      kind: 'exec',
      command: `chmod ${mode} ${shQuote(tmp)} && mv -f ${shQuote(tmp)} ${shQuote(args.path)}`,
    };
    if (move.failed)
      return {
        changed: false,
        failed: true,
        msg: `lineinfile: replacing ${args.path} failed: ${move.stderr.trim()}`,
      };
    return {
      changed: true,
      failed: false,
      msg: edit === 'unchanged' ? 'file created' : edit,
      data: { found },
    };
  },
};
