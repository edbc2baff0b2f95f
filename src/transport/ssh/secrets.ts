import { accessSync, constants, statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { SecretRefError } from '../../errors/index.js';
import type { SecretRef } from '../../types/inventory.js';

/** Names a reference for messages: `env KMX_PASS` or `file /path`. Never the value. */
export function describeSecretRef(ref: SecretRef): string {
  return 'env' in ref ? `environment variable ${ref.env}` : `file ${ref.file}`;
}

/**
 * Reads a secret given by reference, at connect time. A missing variable or unreadable file is a
 * SecretRefError naming the reference (and `what` it was for), never the value.
 */
export async function resolveSecretRef(ref: SecretRef, what: string): Promise<Buffer> {
  if ('env' in ref) {
    const value = process.env[ref.env];
    if (value === undefined || value === '') {
      throw new SecretRefError(`${what}: environment variable ${ref.env} is not set`);
    }
    return Buffer.from(value, 'utf8');
  }
  const path = ref.file === '~' ? homedir() : ref.file.replace(/^~\//, `${homedir()}/`);
  try {
    return await readFile(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'error';
    throw new SecretRefError(`${what}: cannot read file ${ref.file} (${code})`);
  }
}

/** A secret given either by reference or already resolved by the caller. */
export type SecretInput = SecretRef | Buffer | string;

/** Resolves a {@link SecretInput}: references are read, values pass through. */
export async function resolveSecret(input: SecretInput, what: string): Promise<Buffer> {
  if (typeof input === 'string') return Buffer.from(input, 'utf8');
  if (Buffer.isBuffer(input)) return input;
  return resolveSecretRef(input, what);
}

const FILE_PROBLEMS: Record<string, string> = {
  ENOENT: 'no such file',
  EACCES: 'permission denied',
  EISDIR: 'a directory',
  ENOTDIR: 'a parent is not a directory',
};

/**
 * Why a reference cannot be resolved on this machine (a variable unset or empty, a file missing
 * or unreadable), or undefined when it can: the check {@link resolveSecretRef} would fail on,
 * made before anything connects. Never reads a variable's value into the answer.
 */
export function secretRefProblem(ref: SecretRef): string | undefined {
  if ('env' in ref) {
    const value = process.env[ref.env];
    if (value === undefined) return `environment variable ${ref.env} is not set`;
    return value === '' ? `environment variable ${ref.env} is empty` : undefined;
  }
  const path = ref.file === '~' ? homedir() : ref.file.replace(/^~\//, `${homedir()}/`);
  try {
    accessSync(path, constants.R_OK);
    if (statSync(path).isDirectory()) return `cannot read file ${ref.file} (a directory)`;
    return undefined;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'error';
    return `cannot read file ${ref.file} (${FILE_PROBLEMS[code] ?? code})`;
  }
}

/** This machine as the credential check sees it (src/plan/credential-check.ts). */
export const localCredentialLookup = {
  refProblem: secretRefProblem,
  hasSshAgent: () => Boolean(process.env['SSH_AUTH_SOCK']),
};
