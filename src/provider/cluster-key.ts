import { chmod, mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { KubemixError } from '../errors/index.js';

/** The cluster's SSH key pair: kubemix logs in to the machines it creates with it. */
export const clusterKeyPath = (clusterDir: string, file = 'id_ed25519') => join(clusterDir, file);

/**
 * The cluster's own known_hosts: where the host keys of the machines kubemix creates are recorded
 * on first use (accept-new), and which `down` deletes.
 */
export const clusterKnownHostsPath = (clusterDir: string) => join(clusterDir, 'known_hosts');

/** The cluster's public key, or undefined before the first `up` made it. */
export async function readClusterPublicKey(clusterDir: string, file?: string): Promise<string | undefined> {
  try {
    return (await readFile(`${clusterKeyPath(clusterDir, file)}.pub`, 'utf8')).trim();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/**
 * Makes the cluster's key pair once (ssh-keygen, ed25519 unless `type` says rsa, no passphrase:
 * kubemix uses it unattended) in the cluster directory (0700), the private key 0600. Returns the
 * public key. RSA keys are 2048-bit PEM (PKCS#1): EC2 encrypts Windows passwords with the key pair,
 * which must be RSA, and node-forge reads PKCS#1.
 */
export async function ensureClusterKey(
  clusterDir: string,
  cluster: string,
  file?: string,
  type: 'ed25519' | 'rsa' = 'ed25519',
): Promise<string> {
  const existing = await readClusterPublicKey(clusterDir, file);
  if (existing) return existing;
  await mkdir(clusterDir, { recursive: true, mode: 0o700 });
  await chmod(clusterDir, 0o700);
  const path = clusterKeyPath(clusterDir, file);
  const { execa } = await import('execa');
  const made = await execa(
    'ssh-keygen',
    [
      '-q',
      ...(type === 'rsa' ? ['-t', 'rsa', '-b', '2048', '-m', 'PEM'] : ['-t', 'ed25519']),
      '-N',
      '',
      '-C',
      `kubemix@${cluster}`,
      '-f',
      path,
    ],
    {
      reject: false,
      stdin: 'ignore',
    },
  );
  if (made.failed)
    throw new KubemixError(
      `cannot make the cluster SSH key ${path} with ssh-keygen: ${made.stderr || made.message}`,
    );
  await chmod(path, 0o600);
  return (await readFile(`${path}.pub`, 'utf8')).trim();
}
