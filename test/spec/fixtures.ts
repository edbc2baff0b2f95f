import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** The spec fixtures directory. */
export const SPEC_FIXTURES = fileURLToPath(new URL('../../fixtures/specs/', import.meta.url));

// Fixtures that are not valid YAML end in .txt, so the repository's YAML linter skips them.
const FIXTURE_FILE = /^(.*)\.(yaml|txt)$/;

function fixtureFiles(kind: 'valid' | 'invalid'): Map<string, string> {
  const files = new Map<string, string>();
  for (const file of readdirSync(`${SPEC_FIXTURES}${kind}`)) {
    const match = FIXTURE_FILE.exec(file);
    if (match?.[1]) files.set(match[1], file);
  }
  return files;
}

/** Names (without extension) of the fixtures in `valid` or `invalid`. */
export function fixtureNames(kind: 'valid' | 'invalid'): string[] {
  return [...fixtureFiles(kind).keys()].sort();
}

/** The text of a fixture and the file name issues should show. */
export function readFixture(kind: 'valid' | 'invalid', name: string): { text: string; file: string } {
  const base = fixtureFiles(kind).get(name);
  if (!base) throw new Error(`no ${kind} fixture ${name}`);
  return {
    text: readFileSync(`${SPEC_FIXTURES}${kind}/${base}`, 'utf8'),
    file: `fixtures/specs/${kind}/${base}`,
  };
}
