import {
  ENV_NAME_MESSAGE,
  HOST_ADDRESS_MESSAGE,
  isEnvName,
  isHostAddress,
  isUserName,
  USER_NAME_MESSAGE,
} from '../spec/field-patterns.js';

const ADDRESS_VARS = new Set(['ansible_host', 'ansible_ssh_host']);
const USER_VARS = new Set(['ansible_user', 'ansible_ssh_user', 'ansible_become_user']);

/**
 * Why an inventory variable's value cannot be used, or undefined: addresses and users follow the
 * spec's patterns (spec/field-patterns.ts), `*_env` references name a variable, and no string
 * holds a NUL. A value with `{{` is a template, checked when it is used, not here.
 */
export function inventoryVarProblem(key: string, value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  if (value.includes('\0')) return `${key} must not contain a NUL character`;
  if (value.includes('{{')) return undefined;
  if (ADDRESS_VARS.has(key) && !isHostAddress(value)) return `${key} ${HOST_ADDRESS_MESSAGE}`;
  if (USER_VARS.has(key) && !isUserName(value)) return `${key} ${USER_NAME_MESSAGE}`;
  if (/^ansible_\w+_env$/.test(key) && !isEnvName(value)) return `${key} ${ENV_NAME_MESSAGE}`;
  return undefined;
}
