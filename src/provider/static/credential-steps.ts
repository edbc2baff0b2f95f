import type { InventoryHost, SecretRef } from '../../types/inventory.js';
import type { PlanStep } from '../../types/plan.js';

/** Every secret reference the hosts use, once each. */
export function secretRefs(hosts: InventoryHost[]): SecretRef[] {
  const seen = new Map<string, SecretRef>();
  for (const host of hosts) {
    const credentials = host.credentials;
    if (!credentials) continue;
    for (const ref of [credentials.privateKey, credentials.passphrase, credentials.password]) {
      if (ref) seen.set('env' in ref ? `env:${ref.env}` : `file:${ref.file}`, ref);
    }
  }
  return [...seen.values()];
}

/**
 * Steps run on localhost before any host is touched: every credential reference resolves
 * (module `secret_ref_check`, which never reads a secret).
 */
export function credentialPreflightSteps(hosts: InventoryHost[]): PlanStep[] {
  return secretRefs(hosts).map((ref) => ({
    name: 'env' in ref ? `environment variable ${ref.env} is set` : `file ${ref.file} is readable`,
    module: 'secret_ref_check',
    args: 'env' in ref ? { env: ref.env } : { file: ref.file },
  }));
}
