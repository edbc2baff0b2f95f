/**
 * A small structural JSON Schema checker for the keywords specJsonSchema() emits (type, const,
 * enum, pattern, bounds, properties, required, additionalProperties, propertyNames, items,
 * anyOf, oneOf). It lets the tests validate fixtures against the generated schema without
 * adding a validator dependency. Returns the JSON pointers of every failure.
 */
export type JsonSchema = Record<string, unknown>;

function typeMatches(type: string, value: unknown): boolean {
  switch (type) {
    case 'object':
      return value !== null && typeof value === 'object' && !Array.isArray(value);
    case 'array':
      return Array.isArray(value);
    case 'integer':
      return Number.isInteger(value);
    case 'null':
      return value === null;
    default:
      return typeof value === type;
  }
}

export function checkJsonSchema(schema: JsonSchema, value: unknown, at = ''): string[] {
  const errors: string[] = [];
  const fail = (what: string) => errors.push(`${at || '/'}: ${what}`);
  if (typeof schema.type === 'string' && !typeMatches(schema.type, value))
    return [`${at || '/'}: expected ${schema.type}`];
  if ('const' in schema && schema.const !== value) fail(`expected const ${JSON.stringify(schema.const)}`);
  if (Array.isArray(schema.enum) && !schema.enum.includes(value))
    fail(`expected one of ${JSON.stringify(schema.enum)}`);
  if (typeof value === 'string') {
    if (typeof schema.pattern === 'string' && !new RegExp(schema.pattern).test(value))
      fail(`does not match ${schema.pattern}`);
    if (typeof schema.minLength === 'number' && value.length < schema.minLength) fail('too short');
  }
  if (typeof value === 'number') {
    if (typeof schema.minimum === 'number' && value < schema.minimum) fail(`below ${schema.minimum}`);
    if (typeof schema.maximum === 'number' && value > schema.maximum) fail(`above ${schema.maximum}`);
  }
  if (Array.isArray(value)) {
    if (typeof schema.minItems === 'number' && value.length < schema.minItems) fail('too few items');
    const items = schema.items as JsonSchema | undefined;
    if (items)
      for (const [i, item] of value.entries()) errors.push(...checkJsonSchema(items, item, `${at}/${i}`));
  }
  if (typeMatches('object', value)) {
    const record = value as Record<string, unknown>;
    const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
    for (const key of (schema.required ?? []) as string[])
      if (!(key in record)) fail(`missing required ${key}`);
    for (const [key, child] of Object.entries(record)) {
      if (properties[key]) errors.push(...checkJsonSchema(properties[key], child, `${at}/${key}`));
      else if (schema.additionalProperties === false) fail(`unknown key ${key}`);
      else if (typeof schema.additionalProperties === 'object') {
        errors.push(...checkJsonSchema(schema.additionalProperties as JsonSchema, child, `${at}/${key}`));
      }
      if (schema.propertyNames)
        errors.push(...checkJsonSchema(schema.propertyNames as JsonSchema, key, `${at}/${key}`));
    }
  }
  for (const keyword of ['anyOf', 'oneOf'] as const) {
    const options = schema[keyword] as JsonSchema[] | undefined;
    if (!options) continue;
    const passing = options.filter((option) => checkJsonSchema(option, value, at).length === 0).length;
    if (passing === 0 || (keyword === 'oneOf' && passing > 1)) fail(`${keyword}: ${passing} options match`);
  }
  return errors;
}
