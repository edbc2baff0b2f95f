import { z } from 'zod';
import { clusterSpecSchema } from './schema.js';

/** Identifies the schema for editors (yaml-language-server `# yaml-language-server: $schema=...`). */
export const SPEC_SCHEMA_ID = 'https://kubemix.dev/schemas/cluster-spec.v1.json';

/**
 * JSON Schema (draft 2020-12) of a spec as written: defaults are optional, unknown keys are
 * refused. Cross-field rules (Windows VNI/port, host counts...) are not expressible here and are
 * checked by parseSpecText only.
 */
export function specJsonSchema(): Record<string, unknown> {
  const generated = z.toJSONSchema(clusterSpecSchema, { target: 'draft-2020-12', io: 'input' }) as Record<
    string,
    unknown
  >;
  const { $schema: _drop, ...rest } = generated;
  return {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    $id: SPEC_SCHEMA_ID,
    title: 'kubemix cluster spec',
    ...rest,
  };
}
