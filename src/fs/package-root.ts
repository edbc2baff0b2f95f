import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

let found: string | undefined;

/**
 * The kubemix package's root: the nearest directory above this module holding `package.json` and
 * `playbooks/`. The same answer whether this module runs from src/ (vitest), from dist/src/ (tsc's
 * output) or from a bundle that joined it with others (dist/bundle/, the CLI as users run it; the
 * lab's stand-ins): the files kubemix ships beside its code (playbooks, templates, package.json)
 * are found from here, never by counting `../`.
 */
export function packageRoot(): string {
  if (found) return found;
  const start = dirname(fileURLToPath(import.meta.url));
  for (let dir = start; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json')) && existsSync(join(dir, 'playbooks'))) {
      found = dir;
      return dir;
    }
    if (dirname(dir) === dir)
      throw new Error(`kubemix's package.json and playbooks/ not found above ${start}`);
  }
}
