import { isTemplate, renderValue, TemplateRenderError } from '../template/index.js';

/** One layer of variables; `templated` layers are rendered lazily when read (Ansible's lazy templating). */
export interface VarLayer {
  values: Record<string, unknown> | undefined;
  templated?: boolean;
}

function hasTemplate(value: unknown): boolean {
  if (typeof value === 'string') return isTemplate(value);
  if (Array.isArray(value)) return value.some(hasTemplate);
  if (value && typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype)
    return Object.values(value).some(hasTemplate);
  return false;
}

/**
 * Merges variable layers, lowest precedence first, into one object. Templated values become
 * getters that render on first read against the merged scope itself, so `a: "{{ b }}"` sees
 * the final `b`; a variable that refers to itself fails with a clear message.
 */
export function mergeVars(layers: VarLayer[]): Record<string, unknown> {
  const scope: Record<string, unknown> = {};
  const evaluating = new Set<string>();
  for (const layer of layers) {
    if (!layer.values) continue;
    for (const [key, value] of Object.entries(layer.values)) {
      if (layer.templated && hasTemplate(value)) {
        let cached: { value: unknown } | undefined;
        Object.defineProperty(scope, key, {
          configurable: true,
          enumerable: true,
          get() {
            if (cached) return cached.value;
            if (evaluating.has(key))
              throw new TemplateRenderError(`recursive loop detected in the template of variable '${key}'`, {
                variable: key,
              });
            evaluating.add(key);
            try {
              cached = { value: renderValue(value, scope) };
            } finally {
              evaluating.delete(key);
            }
            return cached.value;
          },
        });
      } else {
        Object.defineProperty(scope, key, { configurable: true, enumerable: true, writable: true, value });
      }
    }
  }
  return scope;
}

/** `vars` plus a few concrete values on top (loop item, registered result), without copying `vars`' getters. */
export function withVars(
  vars: Record<string, unknown>,
  extra: Record<string, unknown>,
): Record<string, unknown> {
  const scope = Object.create(vars) as Record<string, unknown>;
  for (const [key, value] of Object.entries(extra))
    Object.defineProperty(scope, key, { configurable: true, enumerable: true, writable: true, value });
  return scope;
}
