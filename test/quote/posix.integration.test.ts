import { execFileSync } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { shQuote } from '../../src/quote/index.js';
import { injectionCorpus } from '../helpers/injection-corpus.js';
import { testTempDirSync } from '../helpers/temp.js';
import { randomStrings } from './random-strings.js';

// The quoted word goes through real shells: Debian's /bin/sh (dash) and bash. Many values per
// shell process: `printf '%s\0' WORD...` prints each word NUL-terminated, so a word that split
// in two, lost a character or ran something shows up as a field that differs.
const dir = testTempDirSync('quote-test');
const canary = join(dir, 'canary');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const SHELLS = ['/bin/sh', '/bin/bash'].filter((shell) => existsSync(shell));

/** What `printf '%s\0' <quoted values>` prints in `shell`, split at the NULs. */
function throughShell(shell: string, values: string[]): string[] {
  const script = `cd ${shQuote(dir)} && printf '%s\\0' ${values.map(shQuote).join(' ')}`;
  const out = execFileSync(shell, ['-c', script], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  return out.split('\0').slice(0, -1);
}

const corpus = injectionCorpus(canary).filter((p) => !p.value.includes('\0'));

describe('shQuote', () => {
  it.each(SHELLS)('round-trips random strings and the injection corpus through %s', (shell) => {
    const values = [
      ...randomStrings({ seed: 9, count: 3000, maxLength: 24 }).map((v) => v.replaceAll('\0', '')),
      ...corpus.map((p) => p.value),
      '',
      "'",
      "''",
      "\\'",
      'a=b',
    ];
    expect(throughShell(shell, values)).toEqual(values);
    expect(existsSync(canary)).toBe(false);
  });

  it('quotes every word, so a value is never an assignment or a reserved word in command position', () => {
    // A bare `A=1` would set a variable; quoted, the shell looks for a program named "A=1".
    const run = (word: string) =>
      execFileSync('/bin/sh', ['-c', `${shQuote(word)} 2>/dev/null; echo $?`], { encoding: 'utf8' }).trim();
    expect(run('A=1')).toBe('127');
    expect(run('if')).toBe('127');
    expect(shQuote('web')).toBe("'web'");
  });

  it('refuses a NUL, which no shell word can hold', () => {
    expect(() => shQuote('a\0b')).toThrow(TypeError);
  });
});
