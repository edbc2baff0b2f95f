import { mkdir, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ensurePrivateDir, writePrivateFile } from '../../src/fs/private-files.js';
import { testTempDir } from '../helpers/temp.js';

let work: string;
let umask: number;
beforeEach(async () => {
  work = await testTempDir('private');
  // The careless machine: everything created would be world-readable and writable.
  umask = process.umask(0o000);
});
afterEach(async () => {
  process.umask(umask);
  await rm(work, { recursive: true, force: true });
});

const mode = async (path: string) => ((await stat(path)).mode & 0o777).toString(8);

describe('private files', () => {
  it('creates a directory and its missing parents 0700 whatever the umask', async () => {
    await ensurePrivateDir(join(work, 'a', 'b', 'cluster'));
    expect([
      await mode(join(work, 'a')),
      await mode(join(work, 'a', 'b')),
      await mode(join(work, 'a', 'b', 'cluster')),
    ]).toEqual(['700', '700', '700']);
  });

  it('leaves the mode of a directory it did not create, unless it already holds kubemix files', async () => {
    const shared = join(work, 'shared');
    await mkdir(shared, { mode: 0o755 });
    await ensurePrivateDir(shared, { ours: 'state.json' });
    expect(await mode(shared)).toBe('755');
    await writeFile(join(shared, 'state.json'), '{}');
    await ensurePrivateDir(shared, { ours: 'state.json' });
    expect(await mode(shared)).toBe('700');
  });

  it('writes files 0600 in private directories', async () => {
    const path = join(work, 'cluster', 'verify.json');
    await writePrivateFile(path, '{}\n');
    expect([await mode(path), await mode(join(work, 'cluster'))]).toEqual(['600', '700']);
  });
});
