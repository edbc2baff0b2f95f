import { SpecError } from '../errors/index.js';
import type { ClusterSpec } from './schema.js';
import { validateSpecInput } from './validate.js';
import { type PathLocator, parseYamlSource } from './yaml-source.js';

/**
 * Parses and validates a YAML cluster spec. Pure: no file access.
 *
 * @param text - the YAML text
 * @param file - the file name shown in issues
 * @returns the spec with every default applied
 * @throws SpecError carrying every problem (YAML syntax, schema, cross-field), each with
 *   file, dot path and line:column
 */
export function parseSpecText(text: string, file: string): ClusterSpec {
  return parseSpecSource(text, file).spec;
}

/** {@link parseSpecText}, also returning where each path is written (for issues found later). */
export function parseSpecSource(text: string, file: string): { spec: ClusterSpec; locate: PathLocator } {
  const source = parseYamlSource(text, file);
  if (source.syntaxIssues.length > 0) throw new SpecError(source.syntaxIssues);
  return { spec: validateSpecInput(source.value, { file, locate: source.locate }), locate: source.locate };
}
