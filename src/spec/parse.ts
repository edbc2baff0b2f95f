import { SpecError } from '../errors/index.js';
import type { ClusterSpec } from './schema.js';
import { validateSpecInput } from './validate.js';
import { parseYamlSource } from './yaml-source.js';

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
  const source = parseYamlSource(text, file);
  if (source.syntaxIssues.length > 0) throw new SpecError(source.syntaxIssues);
  return validateSpecInput(source.value, { file, locate: source.locate });
}
