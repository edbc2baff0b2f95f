import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { copyModule } from '../../src/modules/files/copy.js';
import { winCopyModule } from '../../src/modules/windows/win-copy.js';
import { testTempDir } from '../helpers/temp.js';
import { context, drive } from './drive.js';

// copy and win_copy read their source through one parser and one reader (src/modules/copy-source.ts);
// these pin what each module reports, so the two keep their own module names and null handling.
describe('the copy source of copy and win_copy', () => {
  it('refuses a directory as src, naming the module', async () => {
    const dir = join(await testTempDir('copy-source'), 'a-dir');
    await mkdir(dir);
    for (const module of [copyModule, winCopyModule]) {
      const { actions, outcome } = drive(module, { src: dir, dest: '/x' }, [], context());
      expect(actions).toEqual([]);
      expect(outcome).toEqual({
        changed: false,
        failed: true,
        msg: `${module.name}: ${dir} is a directory; copying directories is not supported`,
      });
    }
  });

  it('reports a src that cannot be read with the reason, naming the module', async () => {
    const missing = join(await testTempDir('copy-source'), 'nope.txt');
    for (const module of [copyModule, winCopyModule]) {
      const { outcome } = drive(module, { src: missing, dest: '/x' }, [], context());
      expect(outcome.failed).toBe(true);
      expect(outcome.msg).toBe(
        `${module.name}: cannot read ${missing}: ENOENT: no such file or directory, stat '${missing}'`,
      );
    }
  });

  it('takes content: null as the text "null" in copy and as no content in win_copy', () => {
    expect(copyModule.parseArgs({ dest: '/x', content: null })).toMatchObject({ content: 'null' });
    expect(() => winCopyModule.parseArgs({ dest: 'C:\\x', content: null })).toThrow(
      'win_copy: give exactly one of "src" or "content"',
    );
  });

  it('needs exactly one of src and content', () => {
    expect(() => copyModule.parseArgs({ dest: '/x', src: 'a', content: 'b' })).toThrow(
      'copy: give exactly one of "src" or "content"',
    );
    expect(() => winCopyModule.parseArgs({ dest: 'C:\\x' })).toThrow(
      'win_copy: give exactly one of "src" or "content"',
    );
    expect(copyModule.parseArgs({ dest: '/x', content: { a: 1 } })).toMatchObject({ content: '{"a":1}' });
  });
});
