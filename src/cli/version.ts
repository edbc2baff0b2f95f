import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../fs/package-root.js';

/** kubemix's own version, from its package.json. */
export function kubemixVersion(): string {
  const pkg = JSON.parse(readFileSync(join(packageRoot(), 'package.json'), 'utf8')) as {
    version: string;
  };
  return pkg.version;
}
