import { type NjNode, nunjucks } from './nunjucks-internals.js';

/** Name of the global that fails on an undefined value (see render.ts). */
export const STRICT_GLOBAL = '__kmx_strict';

/** Tests whose operand may be undefined: `x is defined`, `x is undefined`, `x is none`. */
const GUARD_TESTS = new Set(['defined', 'undefined', 'none']);
/** Filters whose first operand may be undefined. */
const GUARD_FILTERS = new Set(['default', 'd']);

/** Fields that hold names or binding targets, never values to look up. */
function skippedFields(node: NjNode): Set<string> {
  switch (node.typename) {
    case 'Set':
      return new Set(['targets']);
    case 'For':
    case 'AsyncEach':
    case 'AsyncAll':
      return new Set(['name']);
    case 'Macro':
    case 'Caller':
      return new Set(['name', 'args']);
    case 'Block':
      return new Set(['name']);
    case 'Import':
      return new Set(['target']);
    case 'FromImport':
      return new Set(['names']);
    case 'Pair':
      return new Set(['key']);
    case 'Is':
      return new Set(['right']);
    default:
      return new Set();
  }
}

/** `a.b[0]` for a lookup chain, for error messages. */
export function describeLookup(node: NjNode): string {
  if (node.typename === 'Symbol') return String(node.value);
  if (node.typename === 'LookupVal') {
    const target = describeLookup(node['target'] as NjNode);
    const val = node['val'] as NjNode;
    if (val.typename === 'Literal' && typeof val.value === 'string') {
      return /^[A-Za-z_]\w*$/.test(val.value) ? `${target}.${val.value}` : `${target}['${val.value}']`;
    }
    if (val.typename === 'Literal' && typeof val.value === 'number') return `${target}[${val.value}]`;
    return `${target}[...]`;
  }
  return 'expression';
}

function isLookup(node: unknown): node is NjNode {
  const n = node as NjNode | null;
  return !!n && (n.typename === 'Symbol' || n.typename === 'LookupVal');
}

function wrap(node: NjNode, description = describeLookup(node)): NjNode {
  const { FunCall, Symbol: SymbolNode, NodeList, Literal } = nunjucks().nodes;
  const name = new Literal(node.lineno, node.colno, description);
  return new FunCall(
    node.lineno,
    node.colno,
    new SymbolNode(node.lineno, node.colno, STRICT_GLOBAL),
    new NodeList(node.lineno, node.colno, [node, name]),
  );
}

/** A lookup chain left untouched (a guarded operand), with only its index expressions made strict. */
function guardChain(node: NjNode): NjNode {
  if (node.typename === 'LookupVal') {
    node['target'] = guardChain(node['target'] as NjNode);
    node['val'] = strictify(node['val'] as NjNode);
  }
  return node;
}

/**
 * Rewrites a template AST so every variable or attribute lookup that yields `undefined` fails
 * with the name of what was missing (Ansible's StrictUndefined), except operands of `default`
 * and of `is defined`/`is undefined`/`is none`, which may be undefined.
 */
export function strictify(node: NjNode): NjNode {
  if (!node || typeof node !== 'object') return node;
  switch (node.typename) {
    case 'Symbol':
      return wrap(node);
    case 'LookupVal': {
      const description = describeLookup(node);
      node['target'] = strictify(node['target'] as NjNode);
      node['val'] = strictify(node['val'] as NjNode);
      return wrap(node, description);
    }
    case 'Filter': {
      const filterName = String((node['name'] as NjNode).value);
      const args = node['args'] as NjNode;
      const children = args.children ?? [];
      args.children = children.map((child, index) =>
        index === 0 && GUARD_FILTERS.has(filterName) && isLookup(child)
          ? guardChain(child)
          : strictify(child),
      );
      return node;
    }
    case 'FunCall': {
      const callee = node['name'] as NjNode;
      // The callee itself may be a global function; only its receiver must exist (`x.items()`).
      if (callee.typename === 'LookupVal') callee['target'] = strictify(callee['target'] as NjNode);
      node['args'] = strictify(node['args'] as NjNode);
      return node;
    }
    case 'Is': {
      const right = node['right'] as NjNode;
      const testName =
        right.typename === 'Symbol'
          ? String(right.value)
          : String((right['name'] as NjNode | undefined)?.value ?? '');
      const left = node['left'] as NjNode;
      node['left'] = GUARD_TESTS.has(testName) && isLookup(left) ? guardChain(left) : strictify(left);
      if (right.typename === 'FunCall') right['args'] = strictify(right['args'] as NjNode);
      return node;
    }
    default:
      break;
  }
  const skip = skippedFields(node);
  for (const field of node.fields ?? []) {
    if (skip.has(field)) continue;
    const value = node[field];
    if (Array.isArray(value)) node[field] = value.map((child) => strictify(child as NjNode));
    else if (value && typeof value === 'object' && 'typename' in value)
      node[field] = strictify(value as NjNode);
  }
  return node;
}
