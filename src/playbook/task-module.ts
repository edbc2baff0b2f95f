import { findModule } from '../modules/registry.js';
import { containsTemplate, type FieldReader, isRecord, type Path } from './field-reader.js';
import { parseFreeForm } from './free-form.js';
import { FREE_FORM, TASK_KEYWORDS, UNSUPPORTED_TASK } from './playbook-keywords.js';

/** The module a task runs and its arguments, as written (templates kept). */
export interface TaskModule {
  /** Module name without the `ansible.builtin.` prefix. */
  name: string;
  args: Record<string, unknown>;
}

/**
 * Finds the one module among a task's keys and reads its arguments: a mapping, or free-form
 * text (key=value pairs; a command line for command-like modules) merged with `args:`. Every
 * other key must be a task keyword. Arguments without templates are checked by the module
 * now; templated ones can only be checked at run time.
 */
export function taskModule(
  reader: FieldReader,
  raw: Record<string, unknown>,
  path: Path,
  handler: boolean,
): TaskModule | undefined {
  const { source } = reader;
  const moduleKeys: string[] = [];
  for (const key of Object.keys(raw)) {
    if (TASK_KEYWORDS.has(key)) {
      if (key === 'listen' && !handler)
        source.report([...path, key], '"listen" is only valid on handlers', { key: true });
      continue;
    }
    if (UNSUPPORTED_TASK.has(key)) {
      source.report([...path, key], `task keyword "${key}" is not supported by kubemix`, { key: true });
      continue;
    }
    if (findModule(key)) moduleKeys.push(key);
    else source.report([...path, key], `unknown task keyword or module "${key}"`, { key: true });
  }
  if (moduleKeys.length > 1) {
    source.report([...path, moduleKeys[1]!], `a task runs one module, found ${moduleKeys.join(', ')}`, {
      key: true,
    });
    return undefined;
  }
  const moduleKey = moduleKeys[0];
  if (!moduleKey) {
    if (Object.keys(raw).every((k) => TASK_KEYWORDS.has(k)))
      source.report(path, 'task has no module (e.g. command:, copy:, debug:)');
    return undefined;
  }
  const module = findModule(moduleKey)!;
  const modulePath = [...path, moduleKey];
  let args: Record<string, unknown> = {};
  const value = raw[moduleKey];
  if (typeof value === 'string' || typeof value === 'number') {
    const text = String(value);
    const rawKeys = FREE_FORM[module.name];
    const parsed = parseFreeForm(text, rawKeys);
    if (!rawKeys && parsed.bare.length > 0) {
      source.report(
        modulePath,
        `module "${module.name}" takes key=value arguments, not free-form text ("${parsed.bare[0]}")`,
      );
    }
    args = parsed.args;
  } else if (isRecord(value)) args = { ...value };
  else if (value !== null && value !== undefined)
    source.report(modulePath, 'module arguments must be a mapping or a key=value string');
  if (raw['args'] !== undefined) {
    if (isRecord(raw['args'])) args = { ...args, ...raw['args'] };
    else source.report([...path, 'args'], 'must be a mapping');
  }
  if (!containsTemplate(args)) {
    try {
      module.parseArgs(args);
    } catch (error) {
      source.report(modulePath, (error as Error).message);
    }
  }
  return { name: module.name, args };
}
