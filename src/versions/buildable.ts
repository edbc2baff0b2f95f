import type { SpecIssue } from '../errors/index.js';
import { meetsContainerdMinimum, minimumWords } from './containerd-minimum.js';
import { kubernetesSupport, parseKubernetesVersion } from './kubernetes-support.js';
import type { Versions } from './versions.js';

/** kubeadm's etcd, CoreDNS and pause tags for one minor (playbooks/artifacts.yaml `kubeadm-images`). */
export interface KubeadmImages {
  etcd: string;
  coredns: string;
  pause: string;
}

/** Inputs of {@link buildableVersion}: all data, no I/O. */
export interface BuildableInput {
  /** The cluster's Kubernetes version as the spec or the pins give it. */
  kubernetesVersion: string;
  /** Where that version was written (`['kubernetes', 'version']` or `['versions', 'kubernetes']`). */
  path: (string | number)[];
  /** playbooks/versions.yaml with the spec's overrides. */
  versions: Versions;
  /** The `kubeadm-images` table of playbooks/artifacts.yaml, by minor (`1.37`). */
  kubeadmImagesByMinor: Readonly<Record<string, KubeadmImages>>;
  /** Words an issue about the spec at a path (the loaded spec's own: file:line:col, short-form names). */
  issue(path: (string | number)[], message: string): SpecIssue;
}

/** What a build of this version needs to know, or why it cannot be built. */
export interface BuildableVersion {
  /** Problems that stop the build (exit 2, before anything is created). */
  issues: SpecIssue[];
  /** Things a user should know (a pre-release). */
  warnings: string[];
  /** kubeadm's images for the version's minor, when known. */
  kubeadmImages?: KubeadmImages;
}

/**
 * Every question about the cluster's versions that would otherwise be answered on a machine
 * (prepare-linux's containerd minimum, kubeadm's image list for the sandbox image and the offline
 * archives, the flannel release the manifest needs) is answered here, at plan time: a Kubernetes
 * version outside the supported range, a minor without a containerd minimum or a kubeadm image
 * list, a pinned containerd below the minimum, or a flannel older than the manifest's is an issue. Pure.
 */
export function buildableVersion(input: BuildableInput): BuildableVersion {
  const { path, versions, issue } = input;
  const support = kubernetesSupport(input.kubernetesVersion);
  if (support.kind !== 'supported') return { issues: [issue(path, support.message)], warnings: [] };
  const parsed = parseKubernetesVersion(input.kubernetesVersion)!;
  const minor = `${parsed.major}.${parsed.minor}`;
  const issues: SpecIssue[] = containerdIssues(minor, versions, issue);
  const kubeadmImages = input.kubeadmImagesByMinor[minor];
  if (!kubeadmImages)
    issues.push(
      issue(
        path,
        `Kubernetes ${parsed.text}: playbooks/artifacts.yaml has no kubeadm-images entry for ${minor} (what \`kubeadm config images list --kubernetes-version v${parsed.text}\` prints)`,
      ),
    );
  const flannel = flannelReleaseIssue(versions['flannel']);
  if (flannel) issues.push(issue(['versions', 'flannel'], flannel));
  return {
    issues,
    warnings: support.warning ? [support.warning] : [],
    ...(kubeadmImages ? { kubeadmImages } : {}),
  };
}

/**
 * containerd's minimum for the minor (versions.yaml containerd-minimum-1.MM) exists, admits no 1.x
 * branch, and the pinned releases meet it.
 */
function containerdIssues(minor: string, versions: Versions, issue: BuildableInput['issue']): SpecIssue[] {
  const issues: SpecIssue[] = [];
  const minimumEntry = `containerd-minimum-${minor}`;
  const minimums = versions[minimumEntry];
  if (!minimums)
    return [
      issue(
        ['versions', minimumEntry],
        `is empty: Kubernetes ${minor} needs containerd's minimum versions (containerd RELEASES.md, "Kubernetes Support")`,
      ),
    ];
  // kubemix writes containerd's configuration version 3 (containerd-config.toml.j2), which only
  // containerd 2.x reads: a row (a spec's override) that admits a 1.x branch would let a node's
  // distribution package through to a containerd that refuses its configuration.
  const oneX = minimums.split(/\s+/).filter((m) => /^1\./.test(m));
  if (oneX.length > 0)
    issues.push(
      issue(
        ['versions', minimumEntry],
        `admits containerd ${oneX.join(', ')}: kubemix configures containerd with configuration version 3, which containerd 1.x cannot read`,
      ),
    );
  // The pinned releases (Linux nodes whose distribution's is too old, every Windows node) must
  // meet it too; a distribution's own containerd is checked on the node.
  for (const entry of ['containerd-linux', 'containerd'] as const) {
    const pinned = versions[entry];
    if (pinned && meetsContainerdMinimum(pinned, minimums) === false)
      issues.push(
        issue(
          ['versions', entry],
          `containerd ${pinned} is below the minimum for Kubernetes ${minor}, ${minimumWords(minimums)} (containerd RELEASES.md, Kubernetes Support)`,
        ),
      );
  }
  return issues;
}

// kubemix's Linux flannel manifest is upstream's at v0.28.9 (kube-flannel.yaml.j2): its readiness
// probe asks flanneld's /readyz, which no flannel before v0.28.9 serves (commit 07c20946), and its
// install-cni runs /opt/bin/install-conf (flannel images from v0.28.6). An older image's pods never
// turn Ready, so the flannel rollout would wait until it times out.
const OLDEST_FLANNEL: [number, number, number] = [0, 28, 9];

/** Why the `flannel` image's release cannot run kubemix's manifest, or undefined (a tag kubemix cannot read passes). */
function flannelReleaseIssue(image: string | undefined): string | undefined {
  const tag = /:v(\d+)\.(\d+)\.(\d+)(?:@.*)?$/.exec(image ?? '');
  if (!tag) return undefined;
  const release = [Number(tag[1]), Number(tag[2]), Number(tag[3])];
  const older = release.findIndex((part, i) => part !== OLDEST_FLANNEL[i]!);
  if (older === -1 || release[older]! > OLDEST_FLANNEL[older]!) return undefined;
  return `flannel ${image} is older than v${OLDEST_FLANNEL.join('.')}, the release kubemix's flannel manifest follows (its readiness probe asks flanneld's /readyz, served from v0.28.9 on)`;
}

/** The sandbox (pause) image kubeadm's list names for the cluster: containerd's sandbox on every node. */
export const sandboxImage = (images: KubeadmImages) => `registry.k8s.io/pause:${images.pause}`;
