import { existsSync } from 'node:fs';
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runModule } from '../../src/executor/run-module.js';
import { findModule } from '../../src/modules/registry.js';
import { LocalTransport } from '../../src/transport/local/index.js';
import { injectionCorpus } from '../helpers/injection-corpus.js';
import { testTempDir } from '../helpers/temp.js';
import { context } from './drive.js';

// The file modules' generated shell, run for real by /bin/sh, with every corpus value inside a
// destination path: the file lands at exactly that path (a backup next to it) and nothing runs.
const transport = new LocalTransport('node1');
const run = (module: string, args: Record<string, unknown>) =>
  runModule({ module: findModule(module)!, args, context: context(), transport });

let dir: string;
let canary: string;
beforeAll(async () => {
  dir = await testTempDir('paths');
  canary = join(dir, 'canary');
});
afterAll(() => rm(dir, { recursive: true, force: true }));

const cases = injectionCorpus('/CANARY').filter((p) => !p.value.includes('\0'));

describe('paths reach the file modules literally', () => {
  it.each(cases.map((c, i) => ({ ...c, i })))('$name', async ({ i }) => {
    const value = injectionCorpus(canary).find((p) => p.name === cases[i]!.name)!.value;
    const base = join(dir, `case-${i}`);
    const dest = `${base}/${value}`;
    expect(await run('file', { path: base, state: 'directory' })).toMatchObject({ failed: false });
    expect(await run('copy', { content: 'one\n', dest })).toMatchObject({ failed: false, changed: true });
    expect(await readFile(dest, 'utf8')).toBe('one\n');
    const replaced = await run('copy', { content: 'two\n', dest, backup: true });
    expect(replaced).toMatchObject({ failed: false, changed: true });
    expect(await readFile(dest, 'utf8')).toBe('two\n');
    const backup = String(replaced.data?.['backup_file']);
    expect(backup.startsWith(`${dest}.`)).toBe(true);
    expect(await readFile(backup, 'utf8')).toBe('one\n');
    expect(await run('lineinfile', { path: dest, line: 'three' })).toMatchObject({ failed: false });
    expect(await readFile(dest, 'utf8')).toBe('two\nthree\n');
    expect(await run('file', { path: dest, state: 'absent' })).toMatchObject({ changed: true });
    expect(existsSync(dest)).toBe(false);
    expect(existsSync(canary)).toBe(false);
  });
});
