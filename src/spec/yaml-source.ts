import {
  type Alias,
  isAlias,
  isCollection,
  isMap,
  isScalar,
  isSeq,
  LineCounter,
  type Node,
  parseDocument,
  visit,
} from 'yaml';
import type { SpecIssue } from '../errors/index.js';

/** A 1-based position in a source text. */
export interface SourcePosition {
  line: number;
  column: number;
}

/**
 * Maps a path (`nodes.workers.0.count`) to where it is written: the value, or with `key` the
 * mapping key itself (for unknown keys). A missing path gives its nearest existing parent.
 */
export type PathLocator = (
  path: readonly (string | number)[],
  options?: { key?: boolean },
) => SourcePosition | undefined;

/** A parsed YAML spec: its plain value, its syntax problems, and a way to find paths in it. */
export interface YamlSource {
  /** The document as plain data; undefined when the text has syntax errors. */
  value: unknown;
  /** YAML syntax errors, one line each, with their line:column. */
  syntaxIssues: SpecIssue[];
  locate: PathLocator;
}

// The YAML library's messages may carry " at line 3, column 1" and a source excerpt; we give
// line:column separately and keep one line.
function oneLine(message: string): string {
  const first = message.split('\n')[0] ?? message;
  return first.replace(/ at line \d+, column \d+:?\s*$/, '').replace(/:\s*$/, '');
}

/** Parses YAML text keeping source ranges, so every issue can name its line:column. */
export function parseYamlSource(text: string, file: string): YamlSource {
  const lineCounter = new LineCounter();
  let doc: ReturnType<typeof parseDocument>;
  try {
    doc = parseDocument(text, { lineCounter, prettyErrors: false, uniqueKeys: true, merge: true });
  } catch (error) {
    const message = `YAML error: ${oneLine(error instanceof Error ? error.message : String(error))}`;
    return {
      value: undefined,
      syntaxIssues: [{ file, path: '', line: 1, column: 1, message }],
      locate: () => undefined,
    };
  }
  const at = (offset: number): SourcePosition => {
    const { line, col } = lineCounter.linePos(offset);
    return { line, column: col };
  };
  const syntaxIssues: SpecIssue[] = doc.errors.map((error) => ({
    file,
    path: '',
    ...at(error.pos[0]),
    message:
      error.code === 'MULTIPLE_DOCS'
        ? 'a spec file holds one YAML document; remove the second "---"'
        : `YAML syntax error: ${oneLine(error.message)}`,
  }));

  const locate: PathLocator = (path, options = {}) => {
    const root = doc.contents;
    if (!root) return undefined;
    let node: unknown = root;
    // The best position found so far: the deepest existing node (or, for maps, its key).
    let best = root.range ? at(root.range[0]) : undefined;
    for (const [depth, segment] of path.entries()) {
      if (isAlias(node)) node = node.resolve(doc);
      let next: unknown;
      let keyStart: number | undefined;
      if (isMap(node)) {
        const pair = node.items.find((p) => isScalar(p.key) && String(p.key.value) === String(segment));
        if (!pair) return best;
        next = pair.value;
        keyStart = isScalar(pair.key) ? pair.key.range?.[0] : undefined;
      } else if (isSeq(node)) {
        next = node.items[Number(segment)];
        if (next === undefined) return best;
      } else {
        return best;
      }
      // Point at a scalar value itself, but at the key of a mapping entry whose value is a
      // collection or missing: `credentials:` reads better than its first nested key.
      const nextNode = next as Node | null;
      const valueStart = nextNode?.range?.[0];
      if (options.key && depth === path.length - 1 && keyStart !== undefined) best = at(keyStart);
      else if (isScalar(nextNode) && valueStart !== undefined && nextNode.value !== null)
        best = at(valueStart);
      else if (keyStart !== undefined) best = at(keyStart);
      else if (valueStart !== undefined) best = at(valueStart);
      node = next;
      if (!isCollection(node) && !isAlias(node) && !isScalar(node)) return best;
    }
    return best;
  };

  if (syntaxIssues.length > 0) return { value: undefined, syntaxIssues, locate };
  const cycle = aliasInsideItsAnchor(doc);
  if (cycle) {
    const message = `YAML error: the alias *${cycle.source} is inside the node it names (a cycle)`;
    const position = cycle.range ? at(cycle.range[0]) : { line: 1, column: 1 };
    return { value: undefined, syntaxIssues: [{ file, path: '', ...position, message }], locate };
  }
  try {
    return { value: doc.toJS({ maxAliasCount: 100 }), syntaxIssues, locate };
  } catch (error) {
    // Alias problems (a merge of a missing anchor, an alias bomb) surface only when converting.
    const message = `YAML error: ${oneLine(error instanceof Error ? error.message : String(error))}`;
    return { value: undefined, syntaxIssues: [{ file, path: '', line: 1, column: 1, message }], locate };
  }
}

/**
 * An alias that sits inside the node its anchor names (`a: &x {b: *x}`): YAML allows it and
 * the library makes a circular object of it, which no spec can be and every walk of the value
 * would recurse through forever.
 */
function aliasInsideItsAnchor(doc: ReturnType<typeof parseDocument>): Alias | undefined {
  let found: Alias | undefined;
  visit(doc, {
    Alias(_key, alias, path) {
      const target = alias.resolve(doc);
      if (target && path.includes(target)) {
        found = alias;
        return visit.BREAK;
      }
      return undefined;
    },
  });
  return found;
}
