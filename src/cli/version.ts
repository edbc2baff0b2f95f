import { readFileSync } from 'node:fs';

/** kubemix's own version, from its package.json (works from src/ under vitest and from dist/src/). */
export function kubemixVersion(): string {
  const depth = import.meta.url.includes('/dist/src/') ? '../../../' : '../../';
  const pkg = JSON.parse(readFileSync(new URL(`${depth}package.json`, import.meta.url), 'utf8')) as {
    version: string;
  };
  return pkg.version;
}
