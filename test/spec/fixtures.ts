import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** The spec fixtures directory. */
export const SPEC_FIXTURES = fileURLToPath(new URL('../../fixtures/specs/', import.meta.url));

/** Names (without .yaml) of the fixtures in `valid` or `invalid`. */
export function fixtureNames(kind: 'valid' | 'invalid'): string[] {
  return readdirSync(`${SPEC_FIXTURES}${kind}`)
    .filter((f) => f.endsWith('.yaml'))
    .map((f) => f.slice(0, -'.yaml'.length))
    .sort();
}

/** The text of a fixture and the file name issues should show. */
export function readFixture(kind: 'valid' | 'invalid', name: string): { text: string; file: string } {
  const file = `fixtures/specs/${kind}/${name}.yaml`;
  return { text: readFileSync(`${SPEC_FIXTURES}${kind}/${name}.yaml`, 'utf8'), file };
}
