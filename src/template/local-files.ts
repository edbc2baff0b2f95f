import { existsSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';

/**
 * Resolves a controller-side file the way Ansible does for a playbook: absolute paths as is,
 * relative ones under `<playbook_dir>/<kind>/` (files/ or templates/) first, then
 * `<playbook_dir>/`, then the current directory.
 */
export function resolveLocalFile(
  path: string,
  vars: Record<string, unknown>,
  kind: 'files' | 'templates',
): string {
  if (isAbsolute(path)) return path;
  const base = typeof vars['playbook_dir'] === 'string' ? vars['playbook_dir'] : undefined;
  const candidates = base ? [join(base, kind, path), join(base, path)] : [];
  candidates.push(join(process.cwd(), path));
  return candidates.find((candidate) => existsSync(candidate)) ?? candidates[0]!;
}
