import { readFileSync } from 'node:fs';

/** One command line of a README fenced block, as shell words, with the block it came from. */
export interface ReadmeLine {
  /** The words, quotes removed, `~` expanded to `home`, a trailing comment dropped. */
  words: string[];
  /** The line as README has it (continuations joined), for messages. */
  text: string;
}

/** What one fenced block asks the reader to do before and besides its commands. */
export interface ReadmeBlock {
  lines: ReadmeLine[];
  /** `export NAME=value` lines of the block. */
  env: Record<string, string>;
  /** `cp SOURCE TARGET` lines: the reader's copy TARGET is the repository's SOURCE. */
  copies: Map<string, string>;
}

/**
 * Shell words of one line, as POSIX sh splits them for the simple lines a README holds: single
 * and double quotes, `~/` at a word's start, a `#` comment at a word's start. `&&` is its own word.
 * Anything fancier (`$(...)`, pipes) is kept literally, so a test that meets it fails visibly.
 */
export function shellWords(line: string, home: string): string[] {
  const words: string[] = [];
  let word = '';
  let started = false;
  let quote: "'" | '"' | null = null;
  for (let i = 0; i < line.length; i += 1) {
    const c = line[i]!;
    if (quote) {
      if (c === quote) quote = null;
      else word += c;
      continue;
    }
    if (c === "'" || c === '"') {
      quote = c;
      started = true;
    } else if (c === ' ' || c === '\t') {
      if (started) words.push(word);
      word = '';
      started = false;
    } else if (c === '#' && !started) {
      break;
    } else if (c === '~' && !started && (line[i + 1] === '/' || line[i + 1] === undefined)) {
      word += home;
      started = true;
    } else {
      word += c;
      started = true;
    }
  }
  if (quote) throw new Error(`unterminated quote in README line: ${line}`);
  if (started) words.push(word);
  return words;
}

/** A shell block's language tag: none, sh, bash, shell, console. */
const SHELL = /^(|sh|bash|shell|console)$/;

/**
 * Every fenced block of a Markdown file, its backslash continuations joined: shell blocks whole,
 * other blocks (yaml, text...) only their lines that start with `kubemix `.
 */
export function fencedBlocks(markdown: string): string[][] {
  const blocks: string[][] = [];
  let current: string[] | null = null;
  let shell = false;
  for (const line of markdown.split('\n')) {
    const fence = /^```(\S*)/.exec(line);
    if (fence) {
      if (current) blocks.push(current);
      shell = SHELL.test(fence[1]!);
      current = current ? null : [];
      continue;
    }
    if (current && !shell && !line.startsWith('kubemix ')) continue;
    if (!current) continue;
    const last = current.length - 1;
    if (last >= 0 && current[last]!.endsWith('\\'))
      current[last] = `${current[last]!.slice(0, -1)} ${line.trim()}`;
    else current.push(line);
  }
  return blocks;
}

/** README's fenced blocks read as a reader would type them, `~` meaning `home`. */
export function readmeBlocks(path: URL, home: string): ReadmeBlock[] {
  return fencedBlocks(readFileSync(path, 'utf8')).map((block) => {
    const result: ReadmeBlock = { lines: [], env: {}, copies: new Map() };
    for (const text of block) {
      const all = shellWords(text.trim(), home);
      // `a && b` is two commands.
      let words: string[] = [];
      for (const w of [...all, '&&']) {
        if (w !== '&&') {
          words.push(w);
          continue;
        }
        if (words.length === 0) continue;
        if (words[0] === 'export' && words[1]?.includes('=')) {
          const [name, ...value] = words[1].split('=');
          result.env[name!] = value.join('=');
        } else if (words[0] === 'cp' && words.length === 3) result.copies.set(words[2]!, words[1]!);
        result.lines.push({ words, text: text.trim() });
        words = [];
      }
    }
    return result;
  });
}

/**
 * The long options a command's `--help` lists, each with whether it takes a value
 * (`--out DIR`, `--log-format text|json`) or not (`--merge`).
 */
export function helpOptions(help: string): Map<string, boolean> {
  const options = new Map<string, boolean>();
  for (const line of help.split('\n')) {
    const match = /^\s+(?:-\w, )?(--[a-z][\w-]*)(?: ([A-Z][\w|.:/-]*|[a-z]+(?:\|[a-z]+)+))?\s/.exec(
      `${line} `,
    );
    if (match) options.set(match[1]!, match[2] !== undefined);
  }
  return options;
}
