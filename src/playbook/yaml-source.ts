import { type Document, isMap, isPair, isScalar, isSeq, LineCounter, type Node, parseDocument } from 'yaml';
import type { SpecIssue } from '../errors/index.js';
import type { SourceLocation } from './types.js';

/** A YAML file parsed with positions, so every problem can name file, path and line:column. */
export class YamlSource {
  readonly doc: Document.Parsed;
  readonly issues: SpecIssue[] = [];
  private readonly lines = new LineCounter();

  constructor(
    readonly file: string,
    text: string,
  ) {
    // YAML 1.1, as Ansible (PyYAML) reads it: yes/no/on/off are booleans, 0644 is octal.
    this.doc = parseDocument(text, {
      version: '1.1',
      lineCounter: this.lines,
      prettyErrors: false,
      uniqueKeys: true,
    });
    for (const error of [...this.doc.errors, ...this.doc.warnings]) {
      const pos = this.lines.linePos(error.pos[0]);
      this.issues.push({
        file,
        path: '',
        line: pos.line,
        column: pos.col,
        message: error.message.split('\n')[0]!,
      });
    }
  }

  /** The plain JavaScript value of the document. */
  value(): unknown {
    return this.doc.toJS({ maxAliasCount: 1000 });
  }

  /** Line and column of the node at `path` (or of its key with `key: true`), falling back to the nearest parent. */
  locate(path: Array<string | number>, key = false): { line: number; column: number } {
    let node: unknown = this.doc.contents;
    let offset = rangeStart(node) ?? 0;
    for (let i = 0; i < path.length; i++) {
      const segment = path[i]!;
      if (isMap(node)) {
        const pair = node.items.find(
          (p) => isPair(p) && isScalar(p.key) && String(p.key.value) === String(segment),
        );
        if (!pair) break;
        const last = i === path.length - 1;
        if (last && key) {
          offset = rangeStart(pair.key) ?? offset;
          break;
        }
        node = pair.value;
        offset = rangeStart(node) ?? rangeStart(pair.key) ?? offset;
      } else if (isSeq(node)) {
        node = node.items[Number(segment)];
        offset = rangeStart(node) ?? offset;
      } else break;
    }
    const pos = this.lines.linePos(offset);
    return { line: pos.line, column: pos.col };
  }

  /** Records a problem at `path`. */
  report(path: Array<string | number>, message: string, options: { key?: boolean } = {}): void {
    const { line, column } = this.locate(path, options.key);
    this.issues.push({ file: this.file, path: path.join('.'), line, column, message });
  }

  /** The location of `path`, for parsed objects. */
  where(path: Array<string | number>): SourceLocation {
    return { file: this.file, ...this.locate(path) };
  }
}

function rangeStart(node: unknown): number | undefined {
  return (node as Node | undefined)?.range?.[0];
}
