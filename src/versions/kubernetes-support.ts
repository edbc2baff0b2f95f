/**
 * The Kubernetes versions kubemix builds: the two newest minors, whose pins (playbooks/versions.yaml:
 * containerd's minimum per minor from containerd's RELEASES.md) and kubeadm image lists
 * (playbooks/artifacts.yaml) kubemix carries and tests. 1.37.2 is the newest release
 * (k8s.io/kubernetes on the Go module proxy: v1.37.2, 2026-10-27; v1.38.0-beta.0 is a beta, and
 * containerd's RELEASES.md at v2.4.2 has no 1.38 row). 1.35, still maintained upstream until
 * 2027-02-28, is no longer built: its pins are not carried forward.
 * Everything outside the range is refused when the plan is made, before any machine exists.
 */

/** The oldest minor kubemix builds. */
export const OLDEST_SUPPORTED_MINOR = '1.36';
/** The newest minor kubemix builds. */
export const NEWEST_SUPPORTED_MINOR = '1.37';

// Kubernetes' own version strings (k8s.io/apimachinery/pkg/util/version ParseSemantic): a release
// X.Y.Z, or a pre-release X.Y.Z-alpha.N / -beta.N / -rc.N.
const VERSION = /^v?(\d+)\.(\d+)\.(\d+)(?:-((?:alpha|beta|rc)\.\d+))?$/;

/** A Kubernetes version split into its parts (`1.37.0-rc.1`). */
export interface KubernetesVersion {
  major: number;
  minor: number;
  patch: number;
  /** `rc.1`, `beta.0`, `alpha.2`; undefined for a release. */
  prerelease?: string;
  /** The version without a leading `v` (`1.37.0-rc.1`). */
  text: string;
}

/** Parses `1.37.2`, `v1.37.2` or `1.37.0-rc.1`; undefined for anything else. */
export function parseKubernetesVersion(version: string): KubernetesVersion | undefined {
  const match = VERSION.exec(version.trim());
  if (!match) return undefined;
  return {
    major: Number(match[1]),
    minor: Number(match[2]),
    patch: Number(match[3]),
    ...(match[4] === undefined ? {} : { prerelease: match[4] }),
    text: version.trim().replace(/^v/, ''),
  };
}

/** `[major, minor]` of `1.37.2` / `v1.37.2` / `1.37.0-rc.1`, or undefined for anything else. */
export function minorOf(version: string): [number, number] | undefined {
  const parsed = parseKubernetesVersion(version);
  return parsed ? [parsed.major, parsed.minor] : undefined;
}

const compare = (a: [number, number], b: [number, number]) => a[0] - b[0] || a[1] - b[1];
const parseMinor = (minor: string) => minor.split('.').map(Number) as [number, number];
const RANGE = `${OLDEST_SUPPORTED_MINOR} to ${NEWEST_SUPPORTED_MINOR}`;

/** Where a Kubernetes version stands against the supported range. */
export type KubernetesSupport =
  /** Built; `warning` for a pre-release (alpha, beta, rc). */
  | { kind: 'supported'; warning?: string }
  | { kind: 'too-old'; message: string }
  | { kind: 'too-new'; message: string }
  | { kind: 'malformed'; message: string };

/** Checks a Kubernetes version (`1.37.2`, a leading `v` allowed) against the supported range. */
export function kubernetesSupport(version: string): KubernetesSupport {
  const parsed = parseKubernetesVersion(version);
  if (!parsed)
    return {
      kind: 'malformed',
      message: `${JSON.stringify(version)} is not a Kubernetes version such as 1.37.2 (or a pre-release such as 1.37.0-rc.1)`,
    };
  const minor: [number, number] = [parsed.major, parsed.minor];
  if (compare(minor, parseMinor(OLDEST_SUPPORTED_MINOR)) < 0)
    return {
      kind: 'too-old',
      message: `Kubernetes ${parsed.text} is older than the oldest version kubemix builds, ${OLDEST_SUPPORTED_MINOR} (supported: ${RANGE})`,
    };
  if (compare(minor, parseMinor(NEWEST_SUPPORTED_MINOR)) > 0)
    return {
      kind: 'too-new',
      message: `Kubernetes ${parsed.text} is newer than the newest version kubemix builds, ${NEWEST_SUPPORTED_MINOR} (supported: ${RANGE}): its containerd minimum, kubeadm images and package repository are not known to kubemix yet`,
    };
  if (parsed.prerelease !== undefined)
    return {
      kind: 'supported',
      warning: `Kubernetes ${parsed.text} is a pre-release: its packages come from pkgs.k8s.io's prerelease repository and Windows images (kube-proxy) may not be published for it`,
    };
  return { kind: 'supported' };
}

/** The supported range as one line (`kubemix versions`). */
export const supportedRange = () => `supported Kubernetes: ${RANGE}`;

/**
 * Where pkgs.k8s.io publishes a version, and under which Debian upstream version: releases in the
 * `stable` repository as `1.37.2`, pre-releases in `prerelease` with the `-` before the
 * pre-release turned into `~`, which sorts before the release (kubernetes/release at tag v0.21.1:
 * pkg/obs/obs.go OBSNamespaceStable / OBSNamespacePrerelease, pkg/obs/specs/pkgdef.go "replaces
 * "-" with "~""; deb-version(5) on `~`). The Debian revision after it is the repository's
 * (prepare-linux asks `apt-cache madison`).
 */
export function kubernetesPackage(version: KubernetesVersion): {
  channel: 'stable' | 'prerelease';
  version: string;
} {
  const release = `${version.major}.${version.minor}.${version.patch}`;
  return version.prerelease === undefined
    ? { channel: 'stable', version: release }
    : { channel: 'prerelease', version: `${release}~${version.prerelease}` };
}
