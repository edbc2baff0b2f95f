import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { stringify } from 'yaml';
import { readSecrets, secretFragments, writePrivateFile } from '../../engine/index.js';
import { formatPlan } from '../../plan/index.js';
import { resolveSecretRef } from '../../transport/ssh/index.js';
import type { SecretRef } from '../../types/inventory.js';
import type { Plan } from '../../types/plan.js';
import type { ClusterContext } from '../cluster-context.js';
import { kubemixVersion } from '../version.js';

/** kubemix, Node.js and every pinned version (playbooks/versions.yaml after the spec's overrides). */
export function versionsUsed(context: ClusterContext): Record<string, string> {
  return { kubemix: kubemixVersion(), node: process.version, ...context.versions };
}

/**
 * What the run was asked to do, written before it starts: `plan.txt` (the build and teardown
 * plans as `kubemix plan` prints them), the spec as given (`spec/<file>`) and as kubemix read it
 * (`spec.resolved.yaml`, defaults filled in), and `versions.json`.
 */
export async function writeInputs(outDir: string, context: ClusterContext, plans: { up: Plan; down: Plan }) {
  await writePrivateFile(
    join(outDir, 'plan.txt'),
    `${formatPlan(plans.up)}\n\nTeardown (kubemix down):\n${formatPlan(plans.down)}\n`,
  );
  if (existsSync(context.source))
    await writePrivateFile(
      join(outDir, 'spec', basename(context.source)),
      await readFile(context.source, 'utf8'),
    );
  await writePrivateFile(
    join(outDir, 'spec.resolved.yaml'),
    `# ${context.source}, as kubemix read it (defaults filled in)\n${stringify(context.spec)}`,
  );
  await writePrivateFile(
    join(outDir, 'versions.json'),
    `${JSON.stringify(versionsUsed(context), null, 2)}\n`,
  );
}

/**
 * The secret values this run knows, for the secret scan: what the build registered as secret
 * (secrets.json: join commands, certificate keys), cut as the engine's redactor cuts them, and the
 * passwords the spec's credential references resolve to. Read before the teardown forgets them.
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
