import { FilterError } from './filters.js';
import { nunjucks } from './nunjucks-internals.js';

/**
 * Members a template may never read. nunjucks has no sandbox (mozilla/nunjucks#271, #1048:
 * "trivial to escape the main context"): `range.constructor` is JavaScript's Function, so
 * `{{ range.constructor("...")() }}` would run any code on the machine running kubemix from a
 * spec's `vars` or an inventory (the escape shown in mozilla/nunjucks#338). These names are the
 * ways from a value to its prototype or to Function. A block list, not a sandbox: it closes the
 * known escapes; templates still read variables, env and files through `lookup`.
 */
const FORBIDDEN_MEMBERS = new Set([
  'constructor',
  '__proto__',
  'prototype',
  '__defineGetter__',
  '__defineSetter__',
  '__lookupGetter__',
  '__lookupSetter__',
]);

let installed = false;

/**
 * Wraps nunjucks' shared `memberLookup` (every `a.b` and `a[b]` of a compiled template) so the
 * members above fail the render instead of leading to Function. Installed once per process.
 */
export function installMemberGuard(): void {
  if (installed) return;
  installed = true;
  const runtime = nunjucks().runtime as unknown as { memberLookup(obj: unknown, val: unknown): unknown };
  const inner = runtime.memberLookup;
  runtime.memberLookup = function memberLookup(obj: unknown, val: unknown) {
    if (FORBIDDEN_MEMBERS.has(String(val))) throw new FilterError(`templates cannot read "${String(val)}"`);
    return inner.call(this, obj, val);
  };
}
