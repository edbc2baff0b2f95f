import { loadVersions } from '../versions/versions.js';
import type { CrossFieldRule } from './rule-helpers.js';

/** The `versions:` entry that overrides the Windows kube-proxy image. */
export const WINDOWS_KUBE_PROXY_IMAGE_KEY = 'windows-kube-proxy-image';

interface ParsedVersion {
  major: number;
  minor: number;
  /** As written, without a leading `v`. */
  text: string;
}

const SEMVER = /^v?(\d+)\.(\d+)\.(\d+)/;

function parseVersion(text: string): ParsedVersion | undefined {
  const match = SEMVER.exec(text);
  return match
    ? { major: Number(match[1]), minor: Number(match[2]), text: text.replace(/^v/, '') }
    : undefined;
}

/**
 * The Kubernetes version an image's tag names (`repo:v1.33.2-calico-hostprocess`,
 * `repo:v1.33.2@sha256:...`, or a bare tag), or undefined when the tag does not start with one.
 */
export function imageTagVersion(image: string): string | undefined {
  const withoutDigest = image.split('@')[0] ?? '';
  const lastSegment = withoutDigest.slice(withoutDigest.lastIndexOf('/') + 1);
  const tag = lastSegment.includes(':') ? lastSegment.slice(lastSegment.indexOf(':') + 1) : lastSegment;
  return SEMVER.exec(tag)?.[0].replace(/^v/, '');
}

const POLICY = 'https://kubernetes.io/releases/version-skew-policy/#kube-proxy';

/**
 * A Windows kube-proxy image override must stay inside the kube-proxy skew policy
 * (kubernetes.io/releases/version-skew-policy/#kube-proxy): never newer than kube-apiserver, at
 * most three minor versions older (two for kube-proxy below 1.25). The default image follows the
 * cluster's version, so only a written override can break it.
 */
export const windowsKubeProxySkewRule: CrossFieldRule = (spec) => {
  const image = spec.versions[WINDOWS_KUBE_PROXY_IMAGE_KEY];
  if (image === undefined) return [];
  const path = ['versions', WINDOWS_KUBE_PROXY_IMAGE_KEY];
  const tagVersion = imageTagVersion(image);
  const proxy = tagVersion === undefined ? undefined : parseVersion(tagVersion);
  if (!proxy)
    return [
      {
        path,
        message: `cannot tell the kube-proxy version of "${image}": its tag must start with the Kubernetes version, as in sigwindowstools/kube-proxy:v1.33.2-calico-hostprocess`,
      },
    ];
  // The cluster version as build-plan takes it: kubernetes.version, else a versions override, else the pin.
  const clusterText =
    spec.kubernetesVersion ?? spec.versions['kubernetes'] ?? loadVersions()['kubernetes'] ?? '';
  const cluster = parseVersion(clusterText);
  if (!cluster) return []; // the schema reports a malformed kubernetes.version
  // The policy counts minor versions: any patch of the cluster's minor is supported.
  const behind = (cluster.major - proxy.major) * 1000 + cluster.minor - proxy.minor;
  if (behind < 0)
    return [
      {
        path,
        message: `kube-proxy ${proxy.text} is newer than the cluster's Kubernetes ${cluster.text}: kube-proxy must not be newer than kube-apiserver (${POLICY})`,
      },
    ];
  const allowed = proxy.major === 1 && proxy.minor < 25 ? 2 : 3;
  if (behind > allowed)
    return [
      {
        path,
        message: `kube-proxy ${proxy.text} is ${behind} minor versions older than the cluster's Kubernetes ${cluster.text}: kube-proxy may be at most ${allowed} minor versions older than kube-apiserver (${POLICY})`,
      },
    ];
  return [];
};
