import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { KubemixError } from '../errors/index.js';
import { writeFileAtomic } from '../fs/atomic-write.js';
import { PRIVATE_FILE_MODE } from '../fs/private-files.js';

/** Secret outputs by host, then by name. */
export type SecretOutputs = Record<string, Record<string, unknown>>;

/** Path of a cluster's secrets file (mode 0600). */
export const secretsPath = (clusterDir: string) => join(clusterDir, 'secrets.json');

/** Reads `<clusterDir>/secrets.json`; empty when missing. A corrupt file throws naming it. */
export async function readSecrets(clusterDir: string): Promise<SecretOutputs> {
  const path = secretsPath(clusterDir);
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw new KubemixError(`cannot read secrets file ${path}: ${(error as Error).message}`, { cause: error });
  }
  // The parser's message could quote the file's content, i.e. a secret: never pass it on.
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    throw new KubemixError(`secrets file ${path} is corrupt (not valid JSON); move it away to start over`);
  }
  const outputs = (data as { outputs?: unknown } | null)?.outputs;
  if (typeof outputs !== 'object' || outputs === null || Array.isArray(outputs)) {
    throw new KubemixError(`secrets file ${path} is not a kubemix secrets file (no "outputs" object)`);
  }
  return outputs as SecretOutputs;
}

/** Writes the secrets file atomically with mode 0600. */
export async function writeSecrets(clusterDir: string, outputs: SecretOutputs): Promise<void> {
  await writeFileAtomic(
    secretsPath(clusterDir),
    `${JSON.stringify({ version: 1, outputs }, null, 2)}\n`,
    PRIVATE_FILE_MODE,
  );
}
