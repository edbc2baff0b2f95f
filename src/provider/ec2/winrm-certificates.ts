import type { ClusterSpec } from '../../spec/schema.js';
import { winrmCertificate } from './keys.js';
import { planEc2 } from './plan.js';

/**
 * The WinRM HTTPS certificate of every Windows group (PKCS#12, base64, by group; empty over HTTP):
 * the ones `known` (kept in secrets.json by an earlier run) stay, missing ones are made (a
 * self-signed certificate named after the group). A secret: the caller keeps it in secrets.json only.
 */
export function winrmCertificates(
  spec: ClusterSpec,
  known: Record<string, unknown>,
  now: Date = new Date(),
): Record<string, string> {
  const plan = planEc2(spec);
  const kept: Record<string, string> = {};
  if (plan.winrm !== 'https') return kept;
  for (const group of plan.groups.filter((g) => g.os === 'windows')) {
    const old = known[group.group];
    kept[group.group] =
      typeof old === 'string' && old !== ''
        ? old
        : winrmCertificate(`kubemix-${plan.cluster}-${group.group}`, now).pfxBase64;
  }
  return kept;
}
