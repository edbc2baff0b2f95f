import { nunjucks } from './nunjucks-internals.js';

/** Python string methods Ansible users call on strings (`x.startswith('a')`, `out.splitlines()`). */
const STRING_METHODS: Record<string, (self: string, ...args: any[]) => unknown> = {
  startswith: (s, prefix: string) => s.startsWith(prefix),
  endswith: (s, suffix: string) => s.endsWith(suffix),
  strip: (s, chars?: string) =>
    chars === undefined
      ? s.trim()
      : s.replace(new RegExp(`^[${escapeClass(chars)}]+|[${escapeClass(chars)}]+$`, 'g'), ''),
  lstrip: (s) => s.trimStart(),
  rstrip: (s) => s.trimEnd(),
  lower: (s) => s.toLowerCase(),
  upper: (s) => s.toUpperCase(),
  split: pythonSplit,
  splitlines: (s) => s.split(/\r?\n/).filter((line, i, all) => i < all.length - 1 || line !== ''),
  replace: (s, from: string, to: string) => s.replaceAll(from, to),
  find: (s, sub: string) => s.indexOf(sub),
  isdigit: (s) => /^\d+$/.test(s),
  capitalize: (s) => s.charAt(0).toUpperCase() + s.slice(1).toLowerCase(),
  format: (s, ...args: unknown[]) => {
    let i = 0;
    return s.replace(/\{(\d*)\}/g, (_m, n: string) => String(args[n === '' ? i++ : Number(n)] ?? ''));
  },
};

/** Python's str.split: maxsplit keeps the rest whole ('a=b=c'.split('=', 1) is ['a', 'b=c']). */
function pythonSplit(s: string, sep?: string | null, maxsplit = -1): string[] {
  if (sep !== undefined && sep !== null) {
    const words = s.split(sep);
    return maxsplit < 0 || words.length <= maxsplit + 1
      ? words
      : [...words.slice(0, maxsplit), words.slice(maxsplit).join(sep)];
  }
  if (maxsplit < 0) return s.trim().split(/\s+/).filter(Boolean);
  // Runs of whitespace separate; the remainder after maxsplit splits is kept as written.
  const parts: string[] = [];
  let rest = s.replace(/^\s+/, '');
  while (parts.length < maxsplit) {
    const gap = /\s+/.exec(rest);
    if (!gap) break;
    parts.push(rest.slice(0, gap.index));
    rest = rest.slice(gap.index + gap[0].length);
  }
  return rest === '' ? parts : [...parts, rest];
}

function escapeClass(chars: string): string {
  return chars.replace(/[\]\\^-]/g, '\\$&');
}

let installed = false;

/**
 * Python-style methods in templates: nunjucks' own Jinja compatibility layer (dict.items(),
 * keys(), values(), get(), list slices) plus common str methods. nunjucks patches its shared
 * runtime for this, so it is installed once per process.
 */
export function installPythonMethods(): void {
  if (installed) return;
  installed = true;
  (nunjucks() as unknown as { installJinjaCompat(): void }).installJinjaCompat();
  const runtime = nunjucks().runtime as unknown as { memberLookup(obj: unknown, val: unknown): unknown };
  const original = runtime.memberLookup;
  runtime.memberLookup = function memberLookup(obj: unknown, val: unknown) {
    if (typeof obj === 'string' && typeof val === 'string') {
      const method = STRING_METHODS[val];
      if (method) return (...args: unknown[]) => method(obj, ...args);
    }
    return original.call(this, obj, val);
  };
}
