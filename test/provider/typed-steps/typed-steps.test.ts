import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

// Test files are not part of `npm run build`'s program (tsconfig.json compiles src, fixtures and
// scripts), so this file type-checks plan-steps.fixture.ts itself, with the TypeScript compiler in
// this process and the project's compiler options: the typed step builders must refuse each wrong
// argument there, at the line marked `wrong: <argument>`, and accept every other line.

const fixture = fileURLToPath(new URL('./plan-steps.fixture.ts', import.meta.url));
const tsconfig = fileURLToPath(new URL('../../../tsconfig.json', import.meta.url));

/** Each diagnostic of the fixture: its 1-based line, its whole message chain and the code it marks. */
function fixtureDiagnostics(): { line: number; message: string; marks: string }[] {
  const config = ts.getParsedCommandLineOfConfigFile(
    tsconfig,
    { noEmit: true },
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (d) => {
        throw new Error(ts.flattenDiagnosticMessageText(d.messageText, '\n'));
      },
    },
  )!;
  const program = ts.createProgram([fixture], config.options);
  const source = program.getSourceFile(fixture)!;
  return [...program.getSyntacticDiagnostics(source), ...program.getSemanticDiagnostics(source)].map((d) => ({
    line: source.getLineAndCharacterOfPosition(d.start ?? 0).line + 1,
    message: ts.flattenDiagnosticMessageText(d.messageText, '\n'),
    marks: source.text.slice(d.start ?? 0, (d.start ?? 0) + (d.length ?? 0)),
  }));
}

/** The lines marked `// wrong: <argument>`, with that argument. */
function markedLines(): Map<number, string> {
  const marked = new Map<number, string>();
  readFileSync(fixture, 'utf8')
    .split('\n')
    .forEach((text, index) => {
      const argument = /\/\/ wrong: (\w+)$/.exec(text)?.[1];
      if (argument) marked.set(index + 1, argument);
    });
  return marked;
}

describe('typed step builders', () => {
  it('refuse a wrong, misspelt or missing argument at compile time, naming it, and accept right ones and templates', () => {
    const diagnostics = fixtureDiagnostics();
    const marked = markedLines();
    expect(marked.size).toBe(10);
    // Only marked lines fail, and each of them does.
    expect([...new Set(diagnostics.map((d) => d.line))].sort((a, b) => a - b)).toEqual([...marked.keys()]);
    // Each names the argument: in its message, or by marking the argument itself.
    for (const [line, argument] of marked) {
      const found = diagnostics.filter((d) => d.line === line);
      const named = found.some((d) => d.message.includes(`'${argument}'`) || d.marks === argument);
      expect(named, `line ${line} (${argument}): ${found.map((d) => d.message).join(' | ')}`).toBe(true);
    }
  });
});
