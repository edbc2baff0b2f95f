import {
  type Document,
  type DocumentOptions,
  isMap,
  isPair,
  isScalar,
  isSeq,
  LineCounter,
  type Node,
  type ParseOptions,
  parseDocument,
  type SchemaOptions,
  type Tags,
} from 'yaml';
import type { SpecIssue } from '../errors/index.js';
import type { SourceLocation } from './types.js';

const PY_TRUE = /^(?:[Yy]es|YES|[Tt]rue|TRUE|[Oo]n|ON)$/;
const PY_FALSE = /^(?:[Nn]o|NO|[Ff]alse|FALSE|[Oo]ff|OFF)$/;

/**
 * YAML as Ansible reads it (PyYAML, YAML 1.1): yes/no/on/off are booleans and 0644 is octal,
 * but unlike the `yaml` package's 1.1 schema, a bare y or n stays a string.
 */
export const ANSIBLE_YAML: ParseOptions & DocumentOptions & SchemaOptions = {
  version: '1.1',
  customTags: (tags: Tags) =>
    tags.map((tag) => {
      if (typeof tag !== 'object' || tag.tag !== 'tag:yaml.org,2002:bool' || !('test' in tag)) return tag;
      return { ...tag, test: tag.identify?.(true) ? PY_TRUE : PY_FALSE } as typeof tag;
    }),
};

/** A YAML file parsed with positions, so every problem can name file, path and line:column. */
export class YamlSource {
  readonly doc: Document.Parsed;
  readonly issues: SpecIssue[] = [];
  private readonly lines = new LineCounter();

  constructor(
    readonly file: string,
    text: string,
  ) {
    this.doc = parseDocument(text, {
      ...ANSIBLE_YAML,
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
