import { readdirSync, readFileSync, statSync } from 'node:fs';
import { rm, stat } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { makeTempDir, TEMP_PREFIX } from '../../scripts/lab/temp-dir.js';

const root = fileURLToPath(new URL('../..', import.meta.url));

// Temporary directories made other than through scripts/lab/temp-dir.ts, each with the reason.
const ALLOWED: Record<string, string> = {
  'scripts/lab/temp-dir.ts': 'the helper itself',
  'src/executor/private-get.ts':
    'a staging directory beside the fetched file (not in TMPDIR), removed in finally',
};

function sourceFiles(dir: string): string[] {
  return readdirSync(join(root, dir)).flatMap((name) => {
    const path = join(dir, name);
    if (name === 'node_modules' || name === 'dist') return [];
    if (statSync(join(root, path)).isDirectory()) return sourceFiles(path);
    return /\.(ts|sh)$/.test(name) || dir === '.ci' ? [path] : [];
  });
}

describe('temporary directories', () => {
  it('are all made through the one helper, so one prefix finds every one', () => {
    const offenders: string[] = [];
    for (const file of ['src', 'test', 'scripts', 'fixtures', '.ci'].flatMap(sourceFiles)) {
      if (file in ALLOWED || file === relative(root, fileURLToPath(import.meta.url))) continue;
      const text = readFileSync(join(root, file), 'utf8');
      if (/\bmkdtemp(Sync)?\(/.test(text)) offenders.push(`${file}: mkdtemp (use makeTempDir / testTempDir)`);
      // Shell scripts: mktemp with a template under our prefix is fine.
      for (const match of text.matchAll(/\bmktemp\b[^\n]*/g))
        if (!match[0].includes(`/tmp/${TEMP_PREFIX}`)) offenders.push(`${file}: ${match[0].trim()}`);
    }
    expect(offenders).toEqual([]);
  });

  it('are private and named kmx-<purpose>-XXXXXX; a purpose that is not a plain name is refused', async () => {
    const dir = await makeTempDir('unit-check');
    try {
      expect(dir).toMatch(/\/kmx-unit-check-[A-Za-z0-9]{6}$/);
      expect((await stat(dir)).mode & 0o777).toBe(0o700);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
    expect(() => makeTempDir('../x')).toThrow('temp dir purpose must be lower-case words joined by "-"');
  });

  it('go under the parent given instead of $TMPDIR when one is given', async () => {
    const parent = await makeTempDir('unit-parent');
    try {
      const dir = await makeTempDir('unit-child', parent);
      expect(dir.startsWith(`${parent}/kmx-unit-child-`)).toBe(true);
      expect((await stat(dir)).mode & 0o777).toBe(0o700);
    } finally {
      await rm(parent, { recursive: true, force: true });
    }
  });
});
