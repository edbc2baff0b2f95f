import { describe, expect, it } from 'vitest';
import { scanSources } from './source-imports.js';

// The layering STYLE.md asks for, checked on the source: no two top-level directories of src/
// may import each other, directly or through others (engine -> executor -> playbook -> engine
// was such a loop). Type-only imports and dynamic import() count too: they tie the directories
// together all the same.
function directoryImports(): Map<string, Set<string>> {
  const edges = new Map<string, Set<string>>();
  for (const { from: fromFile, to: toFile } of scanSources().imports) {
    if (toFile === undefined) continue;
    const from = fromFile.split('/')[0]!;
    const to = toFile.split('/')[0]!;
    if (to === from || to.startsWith('..') || to.endsWith('.ts')) continue;
    if (!edges.has(from)) edges.set(from, new Set());
    edges.get(from)!.add(to);
  }
  return edges;
}

/** Strongly connected components with more than one directory (Tarjan). */
function cycles(edges: Map<string, Set<string>>): string[][] {
  let index = 0;
  const indexes = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const found: string[][] = [];
  const visit = (node: string) => {
    indexes.set(node, index);
    low.set(node, index++);
    stack.push(node);
    for (const next of edges.get(node) ?? []) {
      if (!indexes.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node)!, low.get(next)!));
      } else if (stack.includes(next)) low.set(node, Math.min(low.get(node)!, indexes.get(next)!));
    }
    if (low.get(node) === indexes.get(node)) {
      const component: string[] = [];
      let top: string;
      do {
        top = stack.pop()!;
        component.push(top);
      } while (top !== node);
      if (component.length > 1) found.push(component.sort());
    }
  };
  for (const node of edges.keys()) if (!indexes.has(node)) visit(node);
  return found;
}

describe('source layering', () => {
  const edges = directoryImports();

  it('has no import cycle between the directories of src/', () => {
    expect(cycles(edges)).toEqual([]);
  });

  it('keeps types and errors free of imports from other directories', () => {
    expect([...(edges.get('types') ?? [])]).toEqual([]);
    expect([...(edges.get('errors') ?? [])]).toEqual([]);
  });
});
