import { execFileSync } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { verbatimStringValue } from '../../fixtures/winrm-server/powershell-literal.js';
import { splitWindowsCommandLine } from '../../src/modules/windows/command-common.js';
import { renderString, TemplateRenderError } from '../../src/template/index.js';
import { injectionCorpus } from '../helpers/injection-corpus.js';
import { testTempDirSync } from '../helpers/temp.js';

const dir = testTempDirSync('quote-filter');
const canary = join(dir, 'canary');
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const corpus = injectionCorpus(canary).filter((p) => !p.value.includes('\0'));

describe('quote filters in templates', () => {
  it('quote (and ansible.builtin.quote) make one literal word for /bin/sh', () => {
    for (const { name, value } of corpus) {
      for (const filter of ['quote', 'ansible.builtin.quote']) {
        const command = renderString(`printf '%s' {{ v | ${filter} }}`, { v: value });
        const out = execFileSync('/bin/sh', ['-c', command], { cwd: dir, encoding: 'utf8' });
        expect(out, `${filter}: ${name}`).toBe(value);
      }
    }
    expect(existsSync(canary)).toBe(false);
  });

  it("ansible.windows.quote(shell='powershell') makes one PowerShell literal, as PowerShell reads it", () => {
    for (const { name, value } of corpus) {
      const literal = renderString("{{ v | ansible.windows.quote(shell='powershell') }}", { v: value });
      expect(verbatimStringValue(literal), name).toBe(value);
    }
    expect(renderString("{{ ['a b', \"it's\"] | ansible.windows.quote(shell='powershell') }}", {})).toBe(
      "'a b' 'it''s'",
    );
  });

  it('ansible.windows.quote without a shell makes Windows command-line words (win_command splits them back)', () => {
    const words = ['C:\\Program Files\\x.exe', 'a"b', 'trailing\\', '', 'plain'];
    const line = renderString('{{ words | ansible.windows.quote }}', { words });
    expect(splitWindowsCommandLine(line)).toEqual(words);
    expect(renderString('{{ {"PROP": "a b"} | ansible.windows.quote }}', {})).toBe('PROP="a b"');
    expect(() => renderString("{{ 'x' | ansible.windows.quote(shell='cmd') }}", {})).toThrow(
      /shell="cmd" is not supported/,
    );
  });
});

describe('templates cannot reach Function', () => {
  it.each([
    '{{ range.constructor("return 6*7")() }}',
    "{{ ''.constructor.constructor('return 1')() }}",
    '{{ cycler.constructor("return 5")() }}',
    '{{ x["__proto__"] }}',
    '{{ x.prototype }}',
  ])('%s fails to render', (template) => {
    expect(() => renderString(template, { x: {} })).toThrow(TemplateRenderError);
  });

  it('the corpus payload that would run touch fails and runs nothing', () => {
    const payload = corpus.find((p) => p.name === 'nunjucks escape to Function')!.value;
    expect(() => renderString(payload, {})).toThrow(/templates cannot read "constructor"/);
    expect(existsSync(canary)).toBe(false);
  });
});
