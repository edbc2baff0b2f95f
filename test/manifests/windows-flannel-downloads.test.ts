import { describe, expect, it } from 'vitest';
import { ManifestError, windowsFlannelDownloads } from '../../src/manifests/index.js';
import { loadVersions } from '../../src/versions/versions.js';

// What Windows flannel's start script installs, for the pinned versions: the URLs are spelled out
// from the upstream release layouts (playbooks/versions.yaml cites them), not computed here.

const images = {
  flannel: 'ghcr.io/flannel-io/flannel:v0.28.9',
  flannel_cni_plugin: 'ghcr.io/flannel-io/flannel-cni-plugin:v1.9.1-flannel3',
};

describe('windowsFlannelDownloads', () => {
  it("takes flanneld.exe and the flannel CNI plugin from the Linux images' releases, the others from their pins", () => {
    const downloads = windowsFlannelDownloads(loadVersions(), images);
    expect(downloads.map((d) => [d.name, d.url, d.checksum_url !== '', d.unpack])).toEqual([
      [
        'flanneld-windows',
        'https://github.com/flannel-io/flannel/releases/download/v0.28.9/flanneld.exe',
        false,
        'none',
      ],
      [
        'flannel-cni-plugin-windows',
        'https://github.com/flannel-io/cni-plugin/releases/download/v1.9.1-flannel3/cni-plugin-flannel-windows-amd64-v1.9.1-flannel3.tgz',
        true,
        'tgz',
      ],
      [
        'cni-plugins-windows',
        'https://github.com/containernetworking/plugins/releases/download/v1.9.1/cni-plugins-windows-amd64-v1.9.1.tgz',
        true,
        'tgz',
      ],
      [
        'windows-cni',
        'https://github.com/microsoft/windows-container-networking/releases/download/v0.3.1/windows-container-networking-cni-amd64-v0.3.1.zip',
        true,
        'zip',
      ],
    ]);
    // The kubelet runs the plugins the CNI config names: flannel, its delegate sdnoverlay, host-local.
    expect(
      downloads.flatMap((d) => d.install.filter((m) => m.dir === 'cni').map((m) => m.to)).sort(),
    ).toEqual(['flannel.exe', 'host-local.exe', 'sdnoverlay.exe']);
  });

  it('follows a newer flannel release on both sides', () => {
    const [flanneld] = windowsFlannelDownloads(loadVersions(), {
      ...images,
      flannel: 'ghcr.io/flannel-io/flannel:v0.29.0',
    });
    expect(flanneld!.url).toBe(
      'https://github.com/flannel-io/flannel/releases/download/v0.29.0/flanneld.exe',
    );
  });

  it('ships no digest it could not read (empty: taken at install) and keeps a pinned one, lower-cased', () => {
    expect(windowsFlannelDownloads(loadVersions(), images).map((d) => d.sha256)).toEqual(['', '', '', '']);
    const pinned = windowsFlannelDownloads(
      { ...loadVersions(), 'flanneld-windows-sha256': 'AB'.repeat(32) },
      images,
    );
    expect(pinned[0]!.sha256).toBe('ab'.repeat(32));
  });

  it('refuses a digest that is not 64 hex digits, naming the versions entry', () => {
    const bad = () => windowsFlannelDownloads({ ...loadVersions(), 'windows-cni-sha256': 'abc' }, images);
    expect(bad).toThrow(ManifestError);
    expect(bad).toThrow('versions entry "windows-cni-sha256" is "abc": expected a SHA-256 (64 hex digits)');
  });
});
