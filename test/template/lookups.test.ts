import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { renderString, renderValue, TemplateRenderError } from '../../src/template/index.js';
import { testTempDir } from '../helpers/temp.js';

afterEach(() => {
  delete process.env['KMX_LOOKUP_A'];
  delete process.env['KMX_LOOKUP_B'];
});

describe("lookup('env')", () => {
  it('reads variables of the process, several joined by commas as Ansible does', () => {
    process.env['KMX_LOOKUP_A'] = 'one';
    process.env['KMX_LOOKUP_B'] = 'two';
    expect(renderValue("{{ lookup('env', 'KMX_LOOKUP_A') }}", {})).toBe('one');
    expect(renderString("{{ lookup('ansible.builtin.env', 'KMX_LOOKUP_A', 'KMX_LOOKUP_B') }}", {})).toBe(
      'one,two',
    );
  });

  it('fails naming an unset variable, unless a default is given', () => {
    const render = () => renderValue("{{ lookup('env', 'KMX_LOOKUP_A') }}", {});
    expect(render).toThrow(TemplateRenderError);
    expect(render).toThrow("lookup('env', 'KMX_LOOKUP_A'): environment variable KMX_LOOKUP_A is not set");
    expect(renderValue("{{ lookup('env', 'KMX_LOOKUP_A', default='fallback') }}", {})).toBe('fallback');
    process.env['KMX_LOOKUP_A'] = '';
    expect(render()).toBe('');
  });
});

describe("lookup('file')", () => {
  it("reads a file with trailing whitespace stripped (Ansible's rstrip), relative paths from the play's files/ then its directory", async () => {
    const dir = await testTempDir('lookup');
    await mkdir(join(dir, 'files'));
    await writeFile(join(dir, 'files', 'pw.txt'), '  s3cret \n\n');
    await writeFile(join(dir, 'other.txt'), 'beside\n');
    const play = { playbook_dir: dir };
    expect(renderValue("{{ lookup('file', 'pw.txt') }}", play)).toBe('  s3cret');
    expect(renderValue("{{ lookup('file', 'pw.txt', lstrip=True, rstrip=False) }}", play)).toBe(
      's3cret \n\n',
    );
    expect(renderValue("{{ lookup('file', 'other.txt') }}", play)).toBe('beside');
    expect(renderValue(`{{ lookup('file', '${join(dir, 'other.txt')}') }}`, {})).toBe('beside');
  });

  it('fails naming the file and where it looked', async () => {
    const dir = await testTempDir('lookup');
    const render = () => renderValue("{{ lookup('file', 'nope.txt') }}", { playbook_dir: dir });
    expect(render).toThrow(TemplateRenderError);
    expect(render).toThrow(
      `lookup('file', 'nope.txt'): cannot read ${join(dir, 'files', 'nope.txt')} (ENOENT)`,
    );
    expect(() => renderValue("{{ lookup('pipe', 'id') }}", {})).toThrow(
      'lookup plugin "pipe" is not supported',
    );
  });
});
