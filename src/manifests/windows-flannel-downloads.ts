/**
 * The files Windows flannel's start script installs on each Windows node (kube-flannel-windows.yaml.j2):
 * flannel's own flanneld.exe and the three CNI plugins the kubelet calls, each from its
 * publisher's release and each checked by SHA-256 before use. Where each comes from and what it
 * holds is cited in playbooks/versions.yaml beside the pins.
 */
import { ManifestError } from './errors.js';

/** One file the Windows flannel start script downloads (or copies from C:\k\offline). */
export interface WindowsFlannelDownload {
  /** Short name, also its artifacts.yaml entry (`flanneld-windows`). */
  name: string;
  url: string;
  /** File name in the artifacts directory and in C:\k\offline (the URL's last segment). */
  file: string;
  /** The pinned SHA-256 (lowercase hex), or '' when install-windows-networking takes it. */
  sha256: string;
  /** The publisher's checksum file beside the asset (`sha256sum` output), or '' when it publishes none. */
  checksum_url: string;
  /** The versions entry that pins the digest. */
  sha256_entry: string;
  /** How the start script gets the programs out: the file itself, or members of a .tgz / .zip. */
  unpack: 'none' | 'tgz' | 'zip';
  /** Member of the archive (or the file) -> its name in the CNI bin dir or C:\k\flannel. */
  install: { from: string; to: string; dir: 'cni' | 'flannel' }[];
}

const HEX64 = /^[0-9a-f]{64}$/;

/** The tag of an image reference (`ghcr.io/flannel-io/flannel:v0.28.9` -> `v0.28.9`). */
function tagOf(reference: string, entry: string): string {
  const tag = /:([^/:@]+)(@.*)?$/.exec(reference)?.[1];
  if (!tag)
    throw new ManifestError('plan vars', `versions entry "${entry}" (${reference}) has no tag`, {
      variable: `versions.${entry}`,
    });
  return tag;
}

/**
 * The downloads for the versions in force. flanneld.exe follows the Linux flannel image's tag and
 * the flannel CNI plugin the Linux flannel-cni-plugin image's tag, so both sides run one release.
 * Throws a ManifestError naming an entry that is missing or a digest that is not 64 hex digits.
 */
export function windowsFlannelDownloads(
  versions: Record<string, unknown>,
  images: { flannel: string; flannel_cni_plugin: string },
): WindowsFlannelDownload[] {
  const entry = (name: string, allowEmpty: boolean): string => {
    const value = versions[name];
    if (typeof value !== 'string' || (!allowEmpty && value === ''))
      throw new ManifestError('plan vars', `versions entry "${name}" is missing`, {
        variable: `versions.${name}`,
      });
    const digest = value.toLowerCase();
    if (name.endsWith('-sha256') && digest !== '' && !HEX64.test(digest))
      throw new ManifestError(
        'plan vars',
        `versions entry "${name}" is ${JSON.stringify(value)}: expected a SHA-256 (64 hex digits) or "" to take it at install`,
        { variable: `versions.${name}` },
      );
    return digest;
  };
  const flannel = tagOf(images.flannel, 'flannel');
  const cniPlugin = tagOf(images.flannel_cni_plugin, 'flannel-cni-plugin');
  const plugins = entry('cni-plugins-windows', false).replace(/^v/, '');
  const windowsCni = entry('windows-cni', false).replace(/^v/, '');
  const download = (
    name: string,
    url: string,
    checksums: boolean,
    unpack: WindowsFlannelDownload['unpack'],
    install: WindowsFlannelDownload['install'],
  ): WindowsFlannelDownload => ({
    name,
    url,
    file: url.split('/').at(-1)!,
    sha256: entry(`${name}-sha256`, true),
    checksum_url: checksums ? `${url}.sha256` : '',
    sha256_entry: `${name}-sha256`,
    unpack,
    install,
  });
  return [
    download(
      'flanneld-windows',
      `https://github.com/flannel-io/flannel/releases/download/${flannel}/flanneld.exe`,
      false,
      'none',
      [{ from: 'flanneld.exe', to: 'flanneld.exe', dir: 'flannel' }],
    ),
    download(
      'flannel-cni-plugin-windows',
      `https://github.com/flannel-io/cni-plugin/releases/download/${cniPlugin}/cni-plugin-flannel-windows-amd64-${cniPlugin}.tgz`,
      true,
      'tgz',
      // The kubelet runs the plugin named by the CNI config's "type": flannel.exe.
      [{ from: 'flannel-amd64.exe', to: 'flannel.exe', dir: 'cni' }],
    ),
    download(
      'cni-plugins-windows',
      `https://github.com/containernetworking/plugins/releases/download/v${plugins}/cni-plugins-windows-amd64-v${plugins}.tgz`,
      true,
      'tgz',
      [{ from: 'host-local.exe', to: 'host-local.exe', dir: 'cni' }],
    ),
    download(
      'windows-cni',
      `https://github.com/microsoft/windows-container-networking/releases/download/v${windowsCni}/windows-container-networking-cni-amd64-v${windowsCni}.zip`,
      true,
      'zip',
      [{ from: 'sdnoverlay.exe', to: 'sdnoverlay.exe', dir: 'cni' }],
    ),
  ];
}
