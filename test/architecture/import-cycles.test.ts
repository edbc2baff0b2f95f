import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// The layering STYLE.md asks for, checked on the source: no two top-level directories of src/
// may import each other, directly or through others (engine -> executor -> playbook -> engine
// was such a loop). Type-only imports count too: they tie the directories together all the same.
const src = fileURLToPath(new URL('../../src', import.meta.url));

function directoryImports(): Map<string, Set<string>> {
  const edges = new Map<string, Set<string>>();
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.ts')) {
        const from = relative(src, path).split('/')[0]!;
        for (const match of readFileSync(path, 'utf8').matchAll(/from '(\.{1,2}\/[^']+)'/g)) {
          const to = relative(src, resolve(dirname(path), match[1]!)).split('/')[0]!;
          if (to === from || to.startsWith('..') || to.endsWith('.js')) continue;
          if (!edges.has(from)) edges.set(from, new Set());
          edges.get(from)!.add(to);
        }
      }
    }
  };
  walk(src);
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
  it('has no import cycle between the directories of src/', () => {
    expect(cycles(directoryImports())).toEqual([]);
  });

  it('keeps types and errors free of imports from other directories', () => {
    const edges = directoryImports();
    expect([...(edges.get('types') ?? [])]).toEqual([]);
    expect([...(edges.get('errors') ?? [])]).toEqual([]);
  });
});
