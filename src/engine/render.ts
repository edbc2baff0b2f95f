import type { TemplateRenderer } from './types.js';

const PLACEHOLDER = /\{\{\s*([A-Za-z_][\w-]*(?:\.[\w-]+)*)\s*\}\}/g;
const WHOLE = /^\{\{\s*([A-Za-z_][\w-]*(?:\.[\w-]+)*)\s*\}\}$/;

/**
 * The engine's built-in template hook: replaces `{{ outputs.NAME }}`, `{{ vars.NAME }}` and any
 * other dotted path into the context, in every string of a value (objects and arrays are walked).
 * A string that is one placeholder alone keeps the value's type. An unknown path throws an
 * Error naming it. Filters and expressions are not supported; the full nunjucks templater
 * replaces this hook when injected.
 */
export const renderPlaceholders: TemplateRenderer = (value, context) => {
  if (typeof value === 'string') return renderString(value, context);
  if (Array.isArray(value)) return value.map((item) => renderPlaceholders(item, context));
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [key, renderPlaceholders(item, context)]),
    );
  }
  return value;
};

function renderString(text: string, context: Record<string, unknown>): unknown {
  const whole = WHOLE.exec(text);
  if (whole) return lookup(context, whole[1] as string);
  return text.replace(PLACEHOLDER, (_match, path: string) => {
    const found = lookup(context, path);
    return typeof found === 'string' ? found : JSON.stringify(found);
  });
}

function lookup(context: Record<string, unknown>, path: string): unknown {
  let current: unknown = context;
  for (const key of path.split('.')) {
    if (typeof current !== 'object' || current === null || !Object.hasOwn(current, key)) {
      throw new Error(`template refers to undefined "${path}"`);
    }
    current = (current as Record<string, unknown>)[key];
  }
  return current;
}
