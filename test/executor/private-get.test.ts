import { existsSync } from 'node:fs';
import { readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { privateGet } from '../../src/executor/private-get.js';
import { LocalTransport } from '../../src/transport/local/index.js';
import { testTempDir } from '../helpers/temp.js';

let work: string;
let umask: number;
beforeEach(async () => {
  work = await testTempDir('private-get');
  umask = process.umask(0o000);
});
afterEach(async () => {
  process.umask(umask);
  await rm(work, { recursive: true, force: true });
});

const mode = async (path: string) => ((await stat(path)).mode & 0o777).toString(8);

describe('privateGet', () => {
  it('lands a world-readable remote file 0600 in new 0700 directories, leaving nothing else behind', async () => {
    const remote = join(work, 'admin.conf');
    await writeFile(remote, 'client-key-data: c2VjcmV0\n', { mode: 0o644 });
    const local = join(work, 'fetched', 'node-a', 'admin.conf');
    const result = await privateGet(new LocalTransport('node-a'), { remotePath: remote, localPath: local });
    expect(result.failed).toBe(false);
    expect(result.command).toContain(local);
    expect(await readFile(local, 'utf8')).toBe('client-key-data: c2VjcmV0\n');
    expect([
      await mode(local),
      await mode(join(work, 'fetched')),
      await mode(join(work, 'fetched', 'node-a')),
    ]).toEqual(['600', '700', '700']);
    expect(await readdir(join(work, 'fetched', 'node-a'))).toEqual(['admin.conf']);
  });

  it('replaces an old copy others could read, and fails cleanly naming the target', async () => {
    const remote = join(work, 'admin.conf');
    await writeFile(remote, 'new\n');
    const local = join(work, 'admin.local');
    await writeFile(local, 'old\n', { mode: 0o644 });
    await privateGet(new LocalTransport('node-a'), { remotePath: remote, localPath: local });
    expect([await readFile(local, 'utf8'), await mode(local)]).toEqual(['new\n', '600']);

    const missing = join(work, 'gone', 'x.conf');
    const result = await privateGet(new LocalTransport('node-a'), {
      remotePath: join(work, 'no-such-file'),
      localPath: missing,
    });
    expect(result.failed).toBe(true);
    expect(`${result.command} ${result.stderr}`).not.toContain('kmx-get');
    expect(existsSync(missing)).toBe(false);
    expect(await readdir(join(work, 'gone'))).toEqual([]);
  });
});
