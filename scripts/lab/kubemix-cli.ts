import { join } from 'node:path';
import { packageRoot } from '../../src/fs/package-root.js';

/** The bundled CLI's directory (scripts/bundle-cli.ts writes it at `npm run build`). */
export const CLI_BUNDLE_DIR = join('dist', 'bundle');

/**
 * The CLI as users run it: package.json's `bin`, the bundle `npm run build` makes (of this checkout,
 * or of a copy of it at `root`). Tests, fixtures, lab scripts and benchmarks start kubemix through
 * this path, so they run and time what users do.
 */
export function kubemixCli(root = packageRoot()): string {
  return join(root, CLI_BUNDLE_DIR, 'kubemix.js');
}
