import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { testTempDirSync } from '../helpers/temp.js';
import { ALLOWED, KNOWN_EXCEPTIONS, layeringViolations, layerOf } from './layering-rules.js';
import { scanSources, srcDir } from './source-imports.js';

// The allow-list of which folder of src/ may import which (layering-rules.ts, table in
// test/README.md, "Layering"), checked on every static, type-only and dynamic import of src/.

function writeTree(files: Record<string, string>): string {
  const root = testTempDirSync('layering');
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

describe('layering allow-list', () => {
  const scan = scanSources();

  it('holds for every import of src/ (known exceptions listed, each still present)', () => {
    expect(layeringViolations(scan)).toEqual([]);
  });

  it('names every folder of src/ in the allow-list', () => {
    const layers = new Set(scan.imports.map((item) => layerOf(item.from)));
    for (const entry of readdirSync(srcDir, { withFileTypes: true })) {
      if (entry.isDirectory() && entry.name !== 'transport' && entry.name !== 'provider')
        layers.add(entry.name);
    }
    expect([...layers].filter((layer) => ALLOWED[layer] === undefined)).toEqual([]);
  });

  it('is the table of test/README.md, "Layering"', () => {
    const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
    const section = readme.split('\n## Layering\n')[1]!.split('\n## ')[0]!;
    const table: Record<string, string[]> = {};
    for (const row of section
      .split('\n')
      .filter((line) => line.startsWith('| '))
      .slice(2)) {
      const [folders, imports] = row
        .split('|')
        .slice(1, 3)
        .map((cell) => cell.trim());
      const list = imports ? imports.split(', ') : [];
      for (const folder of folders!.split(', ')) table[folder] = [...list].sort();
    }
    const sorted = Object.fromEntries(
      Object.entries(ALLOWED).map(([layer, list]) => [layer, [...list].sort()]),
    );
    expect(table).toEqual(sorted);
  });

  it('lists each known exception once, with its reason', () => {
    const keys = KNOWN_EXCEPTIONS.map(({ from, to }) => `${from} -> ${to}`);
    expect(keys.length).toBe(new Set(keys).size);
    expect(KNOWN_EXCEPTIONS.filter(({ why }) => !why.includes('issue #22 removes it'))).toEqual([]);
  });

  it('fails a new edge, a dynamic import, an unfollowable import, listr2, console and exit outside the CLI', () => {
    const root = writeTree({
      'spec/load.ts': "import type { Run } from '../engine/run.js';\nexport type R = Run;\n",
      'engine/run.ts': [
        'export type Run = number;',
        "const name = './late.js';",
        'export const late = () => import(name);',
        "console.log('progress');",
        'process.exit(1);',
        '',
      ].join('\n'),
      'engine/late.ts': 'export {};\n',
      'plan/build.ts': [
        "// import '../cli/main.js' in a comment is no import",
        'export const text = "import(\'../cli/main.js\')";',
        "export const open = () => import('../transport/ssh/session.js');",
        '',
      ].join('\n'),
      'transport/ssh/session.ts': "export { Listr } from 'listr2';\n",
      'cli/main.ts': "console.log('fine here');\nprocess.exitCode = 2;\n",
    });
    expect(layeringViolations(scanSources(root), [])).toEqual([
      'engine/run.ts:3: import(name) has no string literal: the layering check cannot follow it (rule: dynamic imports name their module literally)',
      'plan/build.ts imports transport/ssh/session.ts (dynamic import) (rule: src/plan may import only types, errors, spec, versions, manifests, provider; not src/transport/ssh)',
      'spec/load.ts imports engine/run.ts (rule: src/spec may import only types, errors, versions; not src/engine)',
      'transport/ssh/session.ts imports listr2 (rule: only src/cli uses listr2)',
      'engine/run.ts:4: console.log (rule: only src/cli prints)',
      'engine/run.ts:5: process.exit (rule: only src/cli exits or sets the exit status)',
    ]);
  });

  it('reports a known exception that no longer exists', () => {
    const root = writeTree({ 'spec/load.ts': 'export {};\n' });
    const gone = { from: 'spec/load.ts', to: 'engine/run.ts', why: 'issue #22 removes it' };
    expect(layeringViolations(scanSources(root), [gone])).toEqual([
      'known exception spec/load.ts -> engine/run.ts no longer exists: remove it from KNOWN_EXCEPTIONS',
    ]);
  });
});
