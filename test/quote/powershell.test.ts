import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { Node, Parser } from 'web-tree-sitter';
import { loadPowerShellParser } from '../../fixtures/lab/state/powershell/parser.js';
import { readVerbatimString, verbatimStringValue } from '../../fixtures/winrm-server/powershell-literal.js';
import { readWrapperPreamble } from '../../fixtures/winrm-server/wrapper-preamble.js';
import { psQuote } from '../../src/quote/index.js';
import { wrapScript } from '../../src/transport/powershell/powershell.js';
import { injectionCorpus } from '../helpers/injection-corpus.js';
import { randomStrings } from './random-strings.js';

// No pwsh here. Two independent readers instead: the tree-sitter-powershell grammar (a dev
// dependency) for the token structure of a command line, and fixtures/winrm-server/powershell-literal.ts,
// written from PowerShell's own tokenizer (tokenizer.cs ScanStringLiteral, CharTraits.cs
// IsSingleQuote), for the value, because tree-sitter's grammar knows only the ASCII quote and
// PowerShell also ends strings at U+2018..U+201B.

let parser: Parser | undefined;
async function parse(source: string): Promise<Node> {
  // The one tree-sitter-powershell loader (the lab's, also test/helpers/parse-powershell.ts).
  parser ??= await loadPowerShellParser();
  const tree = parser.parse(source);
  if (!tree) throw new Error('tree-sitter returned no tree');
  return tree.rootNode;
}

function descendants(node: Node, type: string): Node[] {
  const found: Node[] = [];
  const walk = (n: Node) => {
    if (n.type === type) found.push(n);
    for (const child of n.children) if (child) walk(child);
  };
  walk(node);
  return found;
}

const UNICODE_SINGLE_QUOTES = /[\u2018-\u201b]/;
const canary = fileURLToPath(new URL('./never-created-canary', import.meta.url));
const values = [
  ...randomStrings({ seed: 11, count: 1500, maxLength: 20 }),
  ...injectionCorpus(canary).map((p) => p.value),
  '',
  "'",
  '\u2019',
  '\u2019\u2019',
  "'\u2018",
  '-Force',
];

describe('psQuote', () => {
  it('is one string token in a command line, whatever the value (tree-sitter-powershell)', async () => {
    // tree-sitter reads source as a C string and stops at NUL; PowerShell reads past it (checked below).
    for (const value of values.filter((v) => !v.includes('\0'))) {
      const literal = psQuote(value);
      const root = await parse(`Write-Output ${literal} -NoEnumerate`);
      expect(root.hasError, `${JSON.stringify(value)} -> ${literal}`).toBe(false);
      const strings = descendants(root, 'verbatim_string_characters');
      expect(strings.map((s) => s.text)).toEqual([literal]);
      // The parameter after it is still a parameter: the literal swallowed nothing.
      expect(descendants(root, 'command_parameter').map((p) => p.text)).toEqual(['-NoEnumerate']);
      if (!UNICODE_SINGLE_QUOTES.test(value))
        expect(literal.slice(1, -1).replaceAll("''", "'"), JSON.stringify(value)).toBe(value);
    }
  });

  it("reads back as the value with PowerShell's tokenizer rules, typographic quotes included", () => {
    for (const value of values)
      expect(verbatimStringValue(psQuote(value)), JSON.stringify(value)).toBe(value);
  });

  it('doubles all five single-quote characters (a copy that doubled only U+0027 let U+2019 end the string)', () => {
    const attack = 'x\u2019; New-Item C:\\canary; \u2018';
    expect(psQuote(attack)).toBe("'x\u2019\u2019; New-Item C:\\canary; \u2018\u2018'");
    const asciiOnly = `'${attack.replaceAll("'", "''")}'`;
    expect(verbatimStringValue(asciiOnly)).toBeUndefined();
  });

  it('keeps the values of the exec wrapper (env, working directory) literal', async () => {
    for (const value of values.filter((v) => !v.includes('\0'))) {
      const script = wrapScript('Write-Output 1', { env: { KMX_V: value }, cwd: value });
      expect((await parse(script)).hasError, JSON.stringify(value)).toBe(false);
      // The test servers read the preamble the same way (fixtures/winrm-server/test-script-host.ts).
      expect(readWrapperPreamble(script.slice(0, script.indexOf('# kubemix user-script begin')))).toEqual({
        env: { KMX_V: value },
        cwd: value,
      });
      for (const prefix of ['$env:KMX_V = ', 'Set-Location -LiteralPath ']) {
        const read = readVerbatimString(script, script.indexOf(prefix) + prefix.length);
        expect(read?.value, `${prefix}${JSON.stringify(value)}`).toBe(value);
        expect(script[read!.end]).toBe('\n');
      }
    }
  });
});
