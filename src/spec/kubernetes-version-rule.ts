import { kubernetesSupport } from '../versions/kubernetes-support.js';
import type { CrossFieldRule } from './rule-helpers.js';

/**
 * The cluster's Kubernetes version (`kubernetes.version`, else a `versions: { kubernetes }`
 * override) must not be older than the oldest minor kubemix supports. A newer one than kubemix
 * has tested is allowed with a warning (src/versions/kubernetes-support.ts, shown by the CLI).
 */
export const kubernetesVersionRule: CrossFieldRule = (spec) => {
  const written = spec.kubernetesVersion !== undefined;
  const version = spec.kubernetesVersion ?? spec.versions['kubernetes'];
  if (version === undefined) return [];
  const support = kubernetesSupport(version);
  if (support.kind !== 'too-old') return [];
  return [
    { path: written ? ['kubernetes', 'version'] : ['versions', 'kubernetes'], message: support.message },
  ];
};
