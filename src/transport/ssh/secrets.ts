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
