import { parseCidr } from './cidr.js';
import type { ClusterSpec } from './schema.js';

/**
 * What a valid spec does that its author may not mean, as `path: message` lines (printed as
 * warnings; never a reason to refuse). Pure.
 */
export function specWarnings(spec: ClusterSpec): string[] {
  const warnings: string[] = [];
  if (spec.provider.type === 'ec2' && parseCidr(spec.provider.operatorCidr)?.prefix === 0)
    warnings.push(
      `provider.operatorCidr: ${spec.provider.operatorCidr} opens SSH, WinRM and the API server (6443) of every instance to the whole internet; give the range you run kubemix from (e.g. your address/32)`,
    );
  return warnings;
}
