import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

/** The src/ directory every architecture test reads. */
export const srcDir = fileURLToPath(new URL('../../src', import.meta.url));

/** One import of one src file: static, `export ... from`, `import type`, or a dynamic `import()`. */
export interface SourceImport {
  /** Importing file, relative to src/ (e.g. `spec/load.ts`). */
  from: string;
  /** The specifier as written. */
  specifier: string;
  /** The resolved file relative to src/ for a relative specifier; undefined for a package. */
  to?: string;
  kind: 'static' | 'dynamic';
  /** `import type` / `export type` / `import('x').T`: erased by the compiler, never loaded. */
  typeOnly?: boolean;
}

/** A call the layering rules care about (`process.exit(...)`, `console.x(...)`). */
export interface SourceCall {
  from: string;
  /** What was called or touched, e.g. `process.exit` or `console.log`. */
  what: string;
  line: number;
}

/** What one pass over src/ finds. */
export interface SourceScan {
  imports: SourceImport[];
  calls: SourceCall[];
  /** Dynamic `import()` whose argument is not a string literal: the check cannot follow it. */
  unfollowable: SourceCall[];
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** `./x.js` in TypeScript ESM names `./x.ts` (or `./x/index.ts`); returns the path relative to src/. */
function resolveRelative(root: string, file: string, specifier: string): string {
  const base = resolve(dirname(file), specifier);
  const candidates = [base.replace(/\.js$/, '.ts'), `${base}.ts`, join(base, 'index.ts'), base];
  const found = candidates.find((path) => existsSync(path) && statSync(path).isFile());
  // An unresolvable specifier would not compile; keep the raw path so the failure names it.
  return relative(root, found ?? base);
}

/**
 * Reads every .ts file under src/ with the TypeScript parser (so comments and strings never
 * count) and returns its imports and the calls the layering rules restrict.
 */
export function scanSources(root: string = srcDir): SourceScan {
  const scan: SourceScan = { imports: [], calls: [], unfollowable: [] };
  for (const file of sourceFiles(root)) {
    const from = relative(root, file);
    const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
    const lineOf = (node: ts.Node) => source.getLineAndCharacterOfPosition(node.getStart()).line + 1;
    const addImport = (specifier: string, kind: SourceImport['kind'], typeOnly = false) => {
      const to = specifier.startsWith('.') ? resolveRelative(root, file, specifier) : undefined;
      scan.imports.push({
        from,
        specifier,
        kind,
        ...(to === undefined ? {} : { to }),
        ...(typeOnly ? { typeOnly } : {}),
      });
    };
    const followCall = (node: ts.CallExpression, name: string) => {
      const arg = node.arguments[0];
      if (arg && ts.isStringLiteralLike(arg)) addImport(arg.text, 'dynamic');
      else
        scan.unfollowable.push({ from, what: `${name}(${arg?.getText(source) ?? ''})`, line: lineOf(node) });
    };
    const visit = (node: ts.Node): void => {
      if (
        (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) &&
        node.moduleSpecifier &&
        ts.isStringLiteral(node.moduleSpecifier)
      ) {
        const typeOnly = ts.isImportDeclaration(node)
          ? node.importClause?.isTypeOnly === true
          : node.isTypeOnly;
        addImport(node.moduleSpecifier.text, 'static', typeOnly);
      } else if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference)) {
        const ref = node.moduleReference.expression;
        if (ts.isStringLiteral(ref)) addImport(ref.text, 'static');
      } else if (ts.isImportTypeNode(node)) {
        // `import('x').T` in a type position ties the files together like `import type`.
        const arg = node.argument;
        if (ts.isLiteralTypeNode(arg) && ts.isStringLiteral(arg.literal))
          addImport(arg.literal.text, 'static', true);
      } else if (ts.isCallExpression(node)) {
        const callee = node.expression;
        if (callee.kind === ts.SyntaxKind.ImportKeyword) followCall(node, 'import');
        // createRequire's `require('x')` loads a module all the same.
        else if (ts.isIdentifier(callee) && callee.text === 'require') followCall(node, 'require');
      }
      if (ts.isPropertyAccessExpression(node) && ts.isIdentifier(node.expression)) {
        const owner = node.expression.text;
        const name = node.name.text;
        if (owner === 'console' || (owner === 'process' && (name === 'exit' || name === 'exitCode'))) {
          scan.calls.push({ from, what: `${owner}.${name}`, line: lineOf(node) });
        }
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return scan;
}
