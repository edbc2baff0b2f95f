/**
 * The Kubernetes versions kubemix supports: from the oldest minor upstream still maintains to the
 * newest minor kubemix's pins are tested with. Sources (kubernetes.io/releases/<minor>, read with
 * the pins in playbooks/versions.yaml): 1.34 reached end of life on 2026-10-27, 1.35 is maintained
 * until 2027-02-28, 1.36 until 2027-06-28; 1.37 exists but containerd's RELEASES.md does not list
 * it yet, so nothing kubemix pins is known to support it.
 */

/** The oldest minor kubemix builds (below it: refused). */
export const OLDEST_SUPPORTED_MINOR = '1.35';
/** The newest minor kubemix's pins are tested with (above it: a warning). */
export const NEWEST_TESTED_MINOR = '1.36';

const VERSION = /^v?(\d+)\.(\d+)\.(\d+)$/;

/** `[major, minor]` of `1.36.4` / `v1.36.4`, or undefined for anything else. */
export function minorOf(version: string): [number, number] | undefined {
  const match = VERSION.exec(version.trim());
  return match ? [Number(match[1]), Number(match[2])] : undefined;
}

const compare = (a: [number, number], b: [number, number]) => a[0] - b[0] || a[1] - b[1];
const parseMinor = (minor: string) => minor.split('.').map(Number) as [number, number];

/** Where a Kubernetes version stands against the supported range. */
export type KubernetesSupport =
  | { kind: 'supported' }
  | { kind: 'too-old'; message: string }
  | { kind: 'untested'; message: string }
  | { kind: 'malformed' };

/** Checks a Kubernetes version (`1.36.4`, a leading `v` allowed) against the supported range. */
export function kubernetesSupport(version: string): KubernetesSupport {
  const minor = minorOf(version);
  if (!minor) return { kind: 'malformed' };
  const text = version.trim().replace(/^v/, '');
  if (compare(minor, parseMinor(OLDEST_SUPPORTED_MINOR)) < 0)
    return {
      kind: 'too-old',
      message: `Kubernetes ${text} is older than the oldest version kubemix supports, ${OLDEST_SUPPORTED_MINOR} (older minors are past their end of life; supported: ${OLDEST_SUPPORTED_MINOR} to ${NEWEST_TESTED_MINOR})`,
    };
  if (compare(minor, parseMinor(NEWEST_TESTED_MINOR)) > 0)
    return {
      kind: 'untested',
      message: `Kubernetes ${text} is newer than kubemix has been tested with (${OLDEST_SUPPORTED_MINOR} to ${NEWEST_TESTED_MINOR}): its pinned containerd, scripts and images may not fit it`,
    };
  return { kind: 'supported' };
}
