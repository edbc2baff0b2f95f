import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  pinnedReleases,
  releaseModel,
  windowsFlannelPins,
  windowsFlannelRelease,
} from '../../fixtures/lab/windows-flannel-release.js';
import { RELEASE_MODELS } from '../../fixtures/lab/windows-release-models.js';
import { readReleaseTagRecord, releaseTagCacheDir } from '../../scripts/lab/release-tags.js';
import { windowsFlannelDownloads } from '../../src/manifests/index.js';
import { loadVersions } from '../../src/versions/versions.js';

// The lab serves what each pinned tag's release process publishes (fixtures/lab/windows-release-models.ts).
// A model must be of exactly the pinned tag, and cite that tag's commit: the Go module proxy's record
// of the tag (scripts/lab/release-tags.ts, recorded by scripts/setup.sh) decides where it has one.

const versions = loadVersions();

describe('the lab release models are of the pinned tags', () => {
  it('has a model of exactly each pinned release', () => {
    for (const { repository, tag } of pinnedReleases(versions))
      expect(releaseModel(repository, tag)).toMatchObject({ repository, tag });
  });

  it('refuses to serve a pinned release it has no model of at that exact tag', () => {
    expect(() => windowsFlannelRelease({ ...versions, 'windows-cni': '0.3.2' })).toThrow(
      "kubemix lab: no model of microsoft/windows-container-networking v0.3.2's release (fixtures/lab/windows-release-models.ts has v0.3.3): add one read at that tag before pinning it",
    );
    expect(() =>
      windowsFlannelRelease({ ...versions, flannel: 'ghcr.io/flannel-io/flannel:v0.28.8' }),
    ).toThrow("no model of flannel-io/flannel v0.28.8's release");
  });

  it.each(RELEASE_MODELS.map((m) => [`${m.repository} ${m.tag}`, m] as const))(
    "%s cites the tag's own commit, as the Go module proxy records the tag",
    (_name, model) => {
      expect(model.goModule, 'every model names the Go module to check its tag with').toBeDefined();
      const record = readReleaseTagRecord(model.goModule!, model.tag);
      expect(
        record,
        `no record of ${model.goModule}@${model.tag} in ${releaseTagCacheDir()}: run node dist/scripts/lab/record-release-tags.js (scripts/setup.sh does)`,
      ).toBeDefined();
      const proxyKnowsTheTag = record!.origin?.ref === `refs/tags/${model.tag}`;
      if (model.commitRecord === 'go-proxy') {
        expect(proxyKnowsTheTag, `the proxy's origin of ${model.tag}: ${JSON.stringify(record)}`).toBe(true);
        expect(model.commit).toBe(record!.origin!.hash);
      } else {
        // A model may take its commit from a git snapshot only where the proxy keeps no record of the tag.
        expect(
          proxyKnowsTheTag,
          `the proxy records ${model.tag}: make the model's commitRecord go-proxy`,
        ).toBe(false);
        expect(model.commit).toMatch(/^[0-9a-f]{40}$/);
      }
    },
  );
});

describe('kubemix downloads what the pinned releases publish', () => {
  const release = windowsFlannelRelease(versions);

  it('every URL kubemix downloads, and every digest file it checks, is an asset of its release', () => {
    expect(() => windowsFlannelPins(versions)).not.toThrow();
    for (const d of windowsFlannelDownloads(versions)) {
      expect(release.has(d.url), d.url).toBe(true);
      if (d.digest_url) expect(release.has(d.digest_url), d.digest_url).toBe(true);
    }
  });

  it("serves each digest file as the tag's tool writes it: the digest of the asset, two spaces, the name it hashed", () => {
    const zip =
      'https://github.com/microsoft/windows-container-networking/releases/download/v0.3.3/windows-container-networking-cni-amd64-v0.3.3.zip';
    const tgz =
      'https://github.com/flannel-io/cni-plugin/releases/download/v1.9.1-flannel1/cni-plugin-flannel-windows-amd64-v1.9.1.tgz';
    const digest = (algorithm: string, url: string) =>
      createHash(algorithm).update(release.get(url)!, 'utf8').digest('hex');
    // shasum -a 512 ./release/<zip> (Makefile at v0.3.3); sha1sum/sha256sum <tgz> inside release/.
    expect(release.get(`${zip}.sha512`)).toBe(
      `${digest('sha512', zip)}  ./release/windows-container-networking-cni-amd64-v0.3.3.zip\n`,
    );
    expect(release.get(`${tgz}.sha1`)).toBe(
      `${digest('sha1', tgz)}  cni-plugin-flannel-windows-amd64-v1.9.1.tgz\n`,
    );
    // Not published: flanneld.exe's digest, windows-container-networking's .sha1.
    expect(
      release.has('https://github.com/flannel-io/flannel/releases/download/v0.28.9/flanneld.exe.sha256'),
    ).toBe(false);
    expect(release.has(`${zip}.sha1`)).toBe(false);
  });
});
