import { describe, expect, it } from 'vitest';
import { ManifestError, windowsFlannelDownloads, windowsReleaseProblems } from '../../src/manifests/index.js';
import { loadVersions } from '../../src/versions/versions.js';

// What Windows flannel's start script installs: asset names and digest files per release, spelled
// out from each tag's release process (src/manifests/windows-release-assets.ts cites the lines), not
// computed here. Releases are named literally so a wrong name rule fails.

const versions = (overrides: Record<string, string> = {}) => ({ ...loadVersions(), ...overrides });
const byName = (v: Record<string, unknown>) =>
  Object.fromEntries(windowsFlannelDownloads(v).map((d) => [d.name, d]));

describe('windowsFlannelDownloads', () => {
  it('names each release asset as its tag’s release process does, with the digest file it publishes', () => {
    const downloads = windowsFlannelDownloads(
      versions({
        flannel: 'ghcr.io/flannel-io/flannel:v0.28.9',
        'flannel-cni-plugin-windows': 'v1.9.1-flannel1',
        'cni-plugins-windows': '1.9.1',
        'windows-cni': '0.3.3',
      }),
    );
    expect(downloads.map((d) => [d.name, d.url, d.digest_url, d.digest_algorithm, d.unpack])).toEqual([
      [
        'flanneld-windows',
        'https://github.com/flannel-io/flannel/releases/download/v0.28.9/flanneld.exe',
        '',
        '',
        'none',
      ],
      [
        'flannel-cni-plugin-windows',
        // scripts/version.sh keeps the tag's first six characters: no -flannel1 in the name.
        'https://github.com/flannel-io/cni-plugin/releases/download/v1.9.1-flannel1/cni-plugin-flannel-windows-amd64-v1.9.1.tgz',
        'https://github.com/flannel-io/cni-plugin/releases/download/v1.9.1-flannel1/cni-plugin-flannel-windows-amd64-v1.9.1.tgz.sha512',
        'sha512',
        'tgz',
      ],
      [
        'cni-plugins-windows',
        'https://github.com/containernetworking/plugins/releases/download/v1.9.1/cni-plugins-windows-amd64-v1.9.1.tgz',
        'https://github.com/containernetworking/plugins/releases/download/v1.9.1/cni-plugins-windows-amd64-v1.9.1.tgz.sha512',
        'sha512',
        'tgz',
      ],
      [
        'windows-cni',
        'https://github.com/microsoft/windows-container-networking/releases/download/v0.3.3/windows-container-networking-cni-amd64-v0.3.3.zip',
        'https://github.com/microsoft/windows-container-networking/releases/download/v0.3.3/windows-container-networking-cni-amd64-v0.3.3.zip.sha512',
        'sha512',
        'zip',
      ],
    ]);
    // The kubelet runs the plugins the CNI config names: flannel, its delegate sdnoverlay, host-local.
    expect(
      downloads.flatMap((d) => d.install.filter((m) => m.dir === 'cni').map((m) => m.to)).sort(),
    ).toEqual(['flannel.exe', 'host-local.exe', 'sdnoverlay.exe']);
  });

  it('keeps the full flannel CNI plugin tag in the asset name before v1.8.0-flannel2', () => {
    expect(
      byName(versions({ 'flannel-cni-plugin-windows': 'v1.8.0-flannel1' }))['flannel-cni-plugin-windows']!
        .url,
    ).toBe(
      'https://github.com/flannel-io/cni-plugin/releases/download/v1.8.0-flannel1/cni-plugin-flannel-windows-amd64-v1.8.0-flannel1.tgz',
    );
    expect(
      byName(versions({ 'flannel-cni-plugin-windows': 'v1.8.0-flannel2' }))['flannel-cni-plugin-windows']!
        .url,
    ).toBe(
      'https://github.com/flannel-io/cni-plugin/releases/download/v1.8.0-flannel2/cni-plugin-flannel-windows-amd64-v1.8.0.tgz',
    );
  });

  it("takes flanneld.exe from the Linux flannel image's release, and the flannel CNI plugin from its own pin", () => {
    const downloads = byName(
      versions({
        flannel: 'ghcr.io/flannel-io/flannel:v0.29.0',
        'flannel-cni-plugin': 'ghcr.io/flannel-io/flannel-cni-plugin:v1.9.1-flannel3',
      }),
    );
    expect(downloads['flanneld-windows']!.url).toBe(
      'https://github.com/flannel-io/flannel/releases/download/v0.29.0/flanneld.exe',
    );
    expect(downloads['flannel-cni-plugin-windows']!.url).toContain(
      `/download/${loadVersions()['flannel-cni-plugin-windows']}/`,
    );
  });

  it('ships no digest it could not read (empty: taken at install) and keeps a pinned one, lower-cased', () => {
    expect(windowsFlannelDownloads(versions()).map((d) => d.sha256)).toEqual(['', '', '', '']);
    const pinned = windowsFlannelDownloads(versions({ 'flanneld-windows-sha256': 'AB'.repeat(32) }));
    expect(pinned[0]!.sha256).toBe('ab'.repeat(32));
  });

  it('refuses a digest that is not 64 hex digits, naming the versions entry', () => {
    const bad = () => windowsFlannelDownloads(versions({ 'windows-cni-sha256': 'abc' }));
    expect(bad).toThrow(ManifestError);
    expect(bad).toThrow('versions entry "windows-cni-sha256" is "abc": expected a SHA-256 (64 hex digits)');
  });
});

describe('windowsReleaseProblems: releases kubemix has no reliable description of', () => {
  it('refuses windows-container-networking 0.3.1, renamed and rebuilt by hand after its release', () => {
    expect(windowsReleaseProblems(versions({ 'windows-cni': '0.3.1' }))).toEqual([
      {
        entry: 'windows-cni',
        message: expect.stringMatching(
          /^cannot be installed: microsoft\/windows-container-networking v0\.3\.1: its asset was renamed and rebuilt by hand after the release \(microsoft\/windows-container-networking#112, #115\).*use 0\.3\.2 or later$/,
        ),
      },
    ]);
    expect(() => windowsFlannelDownloads(versions({ 'windows-cni': '0.3.1' }))).toThrow(
      /versions entry "windows-cni" cannot be installed: .*v0\.3\.1/,
    );
  });

  it('refuses a release older than the oldest one read at its tag, and a value that names no release', () => {
    expect(
      windowsReleaseProblems(
        versions({
          'windows-cni': '0.3.0',
          'cni-plugins-windows': '1.6.2',
          'flannel-cni-plugin-windows': 'v1.2.0-flannel2',
          flannel: 'ghcr.io/flannel-io/flannel:v0.19.2',
        }),
      ).map((p) => [p.entry, p.message]),
    ).toEqual([
      [
        'flannel',
        'cannot be installed: flannel-io/flannel v0.19.2 is older than v0.20.0, the oldest release whose release process kubemix read at its tag: use v0.20.0 or later',
      ],
      [
        'flannel-cni-plugin-windows',
        'cannot be installed: flannel-io/cni-plugin v1.2.0-flannel2 is older than v1.2.0-flannel3, the oldest release whose release process kubemix read at its tag: use v1.2.0-flannel3 or later',
      ],
      [
        'cni-plugins-windows',
        'cannot be installed: containernetworking/plugins v1.6.2 is older than v1.7.0, the oldest release whose release process kubemix read at its tag: use v1.7.0 or later',
      ],
      [
        'windows-cni',
        'cannot be installed: microsoft/windows-container-networking v0.3.0 is older than v0.3.2, the oldest release whose release process kubemix read at its tag: use v0.3.2 or later',
      ],
    ]);
    expect(windowsReleaseProblems(versions({ 'flannel-cni-plugin-windows': 'latest' }))).toEqual([
      {
        entry: 'flannel-cni-plugin-windows',
        message:
          'cannot be installed: "latest" names no flannel-io/cni-plugin release (e.g. v1.9.1-flannel1)',
      },
    ]);
  });

  it('has no problem with the pinned versions', () => {
    expect(windowsReleaseProblems(versions())).toEqual([]);
  });
});
