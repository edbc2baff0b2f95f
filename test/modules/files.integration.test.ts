import { chmod, lstat, mkdir, readdir, readFile, readlink, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runModule } from '../../src/executor/run-module.js';
import { findModule } from '../../src/modules/registry.js';
import { LocalTransport } from '../../src/transport/local/index.js';
import { testTempDir } from '../helpers/temp.js';
import { context } from './drive.js';

// The shell the modules generate, run for real by /bin/sh through LocalTransport.
const transport = new LocalTransport('node1');
const run = (module: string, args: Record<string, unknown>, checkMode = false) =>
  runModule({ module: findModule(module)!, args, context: context({ checkMode }), transport });
const mode = async (path: string) => ((await stat(path)).mode & 0o7777).toString(8);

let dir: string;
beforeEach(async () => {
  dir = await testTempDir('modules');
});
afterEach(() => rm(dir, { recursive: true, force: true }));

describe('file, copy and lineinfile on a real shell', () => {
  it('file: directory with mode, idempotent, recurse, check mode', async () => {
    const path = join(dir, 'a/b');
    expect(await run('file', { path, state: 'directory', mode: '0750' }, true)).toMatchObject({
      changed: true,
      failed: false,
    });
    await expect(stat(path)).rejects.toThrow();
    expect(await run('file', { path, state: 'directory', mode: '0750' })).toMatchObject({
      changed: true,
      failed: false,
    });
    expect(await mode(path)).toBe('750');
    expect(await run('file', { path, state: 'directory', mode: '0750' })).toMatchObject({
      changed: false,
      failed: false,
    });
    await writeFile(join(path, 'f'), 'x', { mode: 0o600 });
    expect(await run('file', { path, state: 'directory', mode: '0755', recurse: true })).toMatchObject({
      changed: true,
    });
    expect(await mode(join(path, 'f'))).toBe('755');
    expect(await run('file', { path: join(path, 'f'), state: 'directory' })).toMatchObject({
      failed: true,
      msg: `${join(path, 'f')} exists and is not a directory`,
    });
  });

  it('file: links, touch, absent and owner', async () => {
    const target = join(dir, 'target');
    const link = join(dir, 'link');
    await writeFile(target, 'x');
    expect(await run('file', { path: link, src: target, state: 'link' })).toMatchObject({ changed: true });
    expect(await readlink(link)).toBe(target);
    expect(await run('file', { path: link, src: target, state: 'link' })).toMatchObject({ changed: false });
    await mkdir(join(dir, 'occupied'));
    expect((await run('file', { path: join(dir, 'occupied'), src: target, state: 'link' })).failed).toBe(
      true,
    );
    expect(
      await run('file', { path: join(dir, 'occupied'), src: target, state: 'link', force: true }),
    ).toMatchObject({ changed: true, failed: false });
    expect((await lstat(join(dir, 'occupied'))).isSymbolicLink()).toBe(true);
    expect(await run('file', { path: target, state: 'file', owner: 'root', group: 'root' })).toMatchObject({
      changed: false,
      failed: false,
    });
    expect(await run('file', { path: join(dir, 't'), state: 'touch' })).toMatchObject({ changed: true });
    expect(await run('file', { path: link, state: 'absent' })).toMatchObject({ changed: true });
    expect(await run('file', { path: link, state: 'absent' })).toMatchObject({ changed: false });
  });

  it('copy: writes, keeps unchanged files, fixes modes, backs up', async () => {
    const dest = join(dir, 'conf');
    expect(await run('copy', { content: 'one\n', dest, mode: '0600' })).toMatchObject({
      changed: true,
      failed: false,
    });
    expect(await readFile(dest, 'utf8')).toBe('one\n');
    expect(await mode(dest)).toBe('600');
    expect(await run('copy', { content: 'one\n', dest, mode: '0600' })).toMatchObject({ changed: false });
    expect(await run('copy', { content: 'one\n', dest, mode: '0640' })).toMatchObject({ changed: true });
    expect(await mode(dest)).toBe('640');
    const replaced = await run('copy', { content: 'two\n', dest, backup: true });
    expect(replaced).toMatchObject({ changed: true, failed: false });
    expect(await mode(dest)).toBe('640');
    const backup = String(replaced.data?.['backup_file']);
    expect(await readFile(backup, 'utf8')).toBe('one\n');
    expect((await readdir(dir)).filter((f) => f.endsWith('.kubemix-tmp'))).toEqual([]);
  });

  it('lineinfile: creates, edits and keeps the mode', async () => {
    const path = join(dir, 'hosts');
    expect(await run('lineinfile', { path, line: '10.0.0.1 cp1', create: true, mode: '0644' })).toMatchObject(
      { changed: true },
    );
    await writeFile(path, '127.0.0.1 localhost\n10.0.0.1 old\n');
    await chmod(path, 0o600);
    expect(await run('lineinfile', { path, regexp: '^10\\.0\\.0\\.1 ', line: '10.0.0.1 cp1' })).toMatchObject(
      { changed: true, msg: 'line replaced' },
    );
    expect(await readFile(path, 'utf8')).toBe('127.0.0.1 localhost\n10.0.0.1 cp1\n');
    expect(await mode(path)).toBe('600');
    expect(await run('lineinfile', { path, regexp: '^10\\.0\\.0\\.1 ', line: '10.0.0.1 cp1' })).toMatchObject(
      { changed: false },
    );
  });

  it('wait_for: a file that never appears times out with a clear message', async () => {
    const outcome = await run('wait_for', { path: join(dir, 'never'), timeout: 1, sleep: 0.2 });
    expect(outcome).toMatchObject({ failed: true });
    expect(outcome.msg).toBe(`Timeout when waiting for ${join(dir, 'never')} to be present (1 s)`);
  });
});
