import { createRequire } from 'node:module';

// nunjucks 3.2.4 has no typings for its parser, node classes or compiler, and its Template
// copies every context key (which would force every lazy variable). We reach into these
// internals, typed here once; the version is pinned by package-lock.json.

/** A nunjucks AST node (see nunjucks/src/nodes.js). */
export interface NjNode {
  typename: string;
  lineno: number;
  colno: number;
  fields: string[];
  value?: unknown;
  children?: NjNode[];
  [field: string]: unknown;
}

type NodeClass = new (lineno: number, colno: number, ...fields: unknown[]) => NjNode;

export interface NjEnvironment {
  opts: Record<string, unknown>;
  globals: Record<string, unknown>;
  asyncFilters: string[];
  addFilter(name: string, fn: (...args: any[]) => unknown): void;
  addTest(name: string, fn: (...args: any[]) => unknown): void;
  addGlobal(name: string, value: unknown): void;
}

export interface NjTemplate {
  render(context: object): string;
  rootRenderFunc(
    env: NjEnvironment,
    context: object,
    frame: object,
    runtime: unknown,
    cb: (err: unknown, res: string) => void,
  ): void;
}

interface Nunjucks {
  Environment: new (loaders: unknown[], opts: Record<string, unknown>) => NjEnvironment;
  Template: new (
    src: { type: 'code'; obj: unknown },
    env: NjEnvironment,
    path: string,
    eager: boolean,
  ) => NjTemplate;
  parser: { parse(src: string, extensions: unknown[], opts: Record<string, unknown>): NjNode };
  nodes: Record<'FunCall' | 'Symbol' | 'NodeList' | 'Literal', NodeClass>;
  compiler: {
    Compiler: new (
      name: string,
      throwOnUndefined: boolean,
    ) => { compile(node: unknown): void; getCode(): string };
  };
  runtime: { Frame: new () => object };
}

const require = createRequire(import.meta.url);

let loaded: Nunjucks | undefined;
let loadedTransformer: NjTransformer | undefined;

/**
 * The nunjucks module, typed for the parts kubemix uses. Loaded on first use, not when this
 * module is imported: commands that render no template (`status`, `--help`) never pay for
 * compiling nunjucks (#25's start-up).
 */
export function nunjucks(): Nunjucks {
  loaded ??= require('nunjucks') as Nunjucks;
  return loaded;
}

/** nunjucks' AST transformer (not re-exported by its index). */
interface NjTransformer {
  transform(ast: NjNode, asyncFilters: string[], name: string): unknown;
}

/** nunjucks' AST transformer, loaded on first use as nunjucks() is. */
export function transformer(): NjTransformer {
  loadedTransformer ??= require('nunjucks/src/transformer.js') as NjTransformer;
  return loadedTransformer;
}
