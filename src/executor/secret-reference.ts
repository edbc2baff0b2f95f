import type { SecretRef } from '../types/inventory.js';

/**
 * A secret given by reference in a host's variables, as `<base>_env: NAME` or `<base>_file: PATH`
 * (kubemix's forms of Ansible's connection variables, e.g. `ansible_password_env`), if it has one.
 */
export function secretReference(vars: Record<string, unknown>, base: string): SecretRef | undefined {
  const env = vars[`${base}_env`];
  const file = vars[`${base}_file`];
  if (typeof env === 'string' && env !== '') return { env };
  if (typeof file === 'string' && file !== '') return { file };
  return undefined;
}
