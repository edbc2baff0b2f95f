/**
 * The files Windows flannel's start script installs on each Windows node (kube-flannel-windows.yaml.j2):
 * flannel's own flanneld.exe and the three CNI plugins the kubelet calls, each from its
 * publisher's release. The asset names and the digest files beside them follow each release's own
 * process (windows-release-assets.ts); playbooks/versions.yaml says which releases are pinned.
 */
import { ManifestError } from './errors.js';
import {
  checkedDigest,
  type DigestAlgorithm,
  releaseAssets,
  releaseEntry,
  type WindowsReleaseProject,
} from './windows-release-assets.js';

/** One file the Windows flannel start script downloads (or copies from C:\k\offline). */
export interface WindowsFlannelDownload {
  /** Short name, also its artifacts.yaml entry (`flanneld-windows`). */
  name: WindowsReleaseProject;
  url: string;
  /** File name in the artifacts directory and in C:\k\offline (the URL's last segment). */
  file: string;
  /**
   * kubemix's pin: the SHA-256 (lowercase hex) the nodes' start script checks, or '' when
   * install-windows-networking takes it (after checking the download against `digest_url`).
   */
  sha256: string;
  /** The versions entry that pins the SHA-256. */
  sha256_entry: string;
  /**
   * The publisher's digest file beside the asset that a first download is checked against (a
   * `<hex>  <name>` line: only the first field counts), or '' when the release publishes none.
   */
  digest_url: string;
  /** The algorithm of `digest_url` ('' with it). */
  digest_algorithm: DigestAlgorithm | '';
  /** The versions entry that selects the release (`windows-cni`; flanneld.exe follows `flannel`). */
  version_entry: string;
  /** How the start script gets the programs out: the file itself, or members of a .tgz / .zip. */
  unpack: 'none' | 'tgz' | 'zip';
  /** Member of the archive (or the file) -> its name in the CNI bin dir or C:\k\flannel. */
  install: { from: string; to: string; dir: 'cni' | 'flannel' }[];
}

const HEX64 = /^[0-9a-f]{64}$/;

/** The tag of an image reference (`ghcr.io/flannel-io/flannel:v0.28.9` -> `v0.28.9`), or undefined. */
function tagOf(reference: string): string | undefined {
  return /:([^/:@]+)(@.*)?$/.exec(reference)?.[1];
}

/** The value a project's release is selected by: the flannel image's tag for flanneld.exe. */
function releaseValue(project: WindowsReleaseProject, versions: Record<string, unknown>): unknown {
  const value = versions[releaseEntry(project)];
  if (project !== 'flanneld-windows' || typeof value !== 'string') return value;
  return tagOf(value) ?? value;
}

/** What is installed from each release, in the order the start script installs them. */
const INSTALLS: {
  project: WindowsReleaseProject;
  unpack: WindowsFlannelDownload['unpack'];
  install: WindowsFlannelDownload['install'];
}[] = [
  {
    project: 'flanneld-windows',
    unpack: 'none',
    install: [{ from: 'flanneld.exe', to: 'flanneld.exe', dir: 'flannel' }],
  },
  {
    project: 'flannel-cni-plugin-windows',
    unpack: 'tgz',
    // The kubelet runs the plugin named by the CNI config's "type": flannel.exe.
    install: [{ from: 'flannel-amd64.exe', to: 'flannel.exe', dir: 'cni' }],
  },
  {
    project: 'cni-plugins-windows',
    unpack: 'tgz',
    install: [{ from: 'host-local.exe', to: 'host-local.exe', dir: 'cni' }],
  },
  {
    project: 'windows-cni',
    unpack: 'zip',
    install: [{ from: 'sdnoverlay.exe', to: 'sdnoverlay.exe', dir: 'cni' }],
  },
];

/**
 * Why the pinned releases cannot be installed, one problem per versions entry (none: they can):
 * an entry that names no release, or a release no rule of windows-release-assets.ts describes. The
 * spec's cross-field rule reports these at plan time; {@link windowsFlannelDownloads} throws the first.
 */
export function windowsReleaseProblems(
  versions: Record<string, unknown>,
): { entry: string; message: string }[] {
  const problems: { entry: string; message: string }[] = [];
  for (const { project } of INSTALLS) {
    const entry = releaseEntry(project);
    const value = releaseValue(project, versions);
    if (typeof value !== 'string' || value === '') {
      problems.push({ entry, message: 'is missing' });
      continue;
    }
    const found = releaseAssets(project, value);
    if ('refused' in found) problems.push({ entry, message: `cannot be installed: ${found.refused}` });
  }
  return problems;
}

/**
 * The downloads for the versions in force. flanneld.exe follows the Linux flannel image's tag (both
 * sides run one flannel release); the CNI plugins follow their own pins. Pure.
 *
 * @throws ManifestError naming the versions entry of a release kubemix cannot install
 *   ({@link windowsReleaseProblems}) or of a digest that is not 64 hex digits
 */
export function windowsFlannelDownloads(versions: Record<string, unknown>): WindowsFlannelDownload[] {
  const [problem] = windowsReleaseProblems(versions);
  if (problem)
    throw new ManifestError('plan vars', `versions entry "${problem.entry}" ${problem.message}`, {
      variable: `versions.${problem.entry}`,
    });
  const pin = (name: string): string => {
    const value = versions[name];
    if (typeof value !== 'string')
      throw new ManifestError('plan vars', `versions entry "${name}" is missing`, {
        variable: `versions.${name}`,
      });
    const digest = value.toLowerCase();
    if (digest !== '' && !HEX64.test(digest))
      throw new ManifestError(
        'plan vars',
        `versions entry "${name}" is ${JSON.stringify(value)}: expected a SHA-256 (64 hex digits) or "" to take it at install`,
        { variable: `versions.${name}` },
      );
    return digest;
  };
  return INSTALLS.map(({ project, unpack, install }) => {
    const found = releaseAssets(project, releaseValue(project, versions) as string);
    // windowsReleaseProblems has refused every release without assets.
    if (!('assets' in found)) throw new TypeError(found.refused);
    const { repository, tag, file } = found.assets;
    const url = `https://github.com/${repository}/releases/download/${tag}/${file}`;
    const algorithm = checkedDigest(found.assets);
    return {
      name: project,
      url,
      file,
      sha256: pin(`${project}-sha256`),
      sha256_entry: `${project}-sha256`,
      digest_url: algorithm ? `${url}.${algorithm}` : '',
      digest_algorithm: algorithm ?? '',
      version_entry: releaseEntry(project),
      unpack,
      install,
    };
  });
}
