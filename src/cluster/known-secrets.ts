import { readSecrets, secretFragments } from '../engine/index.js';
import { resolveSecretRef } from '../transport/ssh/index.js';
import type { SecretRef } from '../types/inventory.js';
import type { Plan } from '../types/plan.js';

/**
 * The secret values a run knows, for a secret scan of what it left behind: what the build
 * registered as secret (secrets.json: join commands, certificate keys), cut as the engine's
 * redactor cuts them, and the passwords the spec's credential references resolve to. Read before
 * the teardown forgets them.
 */
export async function knownSecretValues(clusterDir: string, plan: Plan): Promise<string[]> {
  const values = new Set<string>();
  const secrets = await readSecrets(clusterDir).catch(() => ({}));
  for (const byName of Object.values(secrets))
    for (const value of Object.values(byName))
      for (const fragment of secretFragments(value)) values.add(fragment);
  // Passwords and passphrases, once each; a private key is found by its PEM armour.
  const refs = new Map<string, SecretRef>();
  for (const host of plan.hosts)
    for (const ref of [host.credentials?.password, host.credentials?.passphrase])
      if (ref) refs.set(JSON.stringify(ref), ref);
  for (const ref of refs.values()) {
    const value = await resolveSecretRef(ref, 'secret scan').then(
      (buffer) => buffer.toString('utf8').trim(),
      () => '',
    );
    if (value.length >= 4) values.add(value);
    for (const fragment of secretFragments(value)) values.add(fragment);
  }
  return [...values];
}
