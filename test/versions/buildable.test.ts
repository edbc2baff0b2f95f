import { describe, expect, it } from 'vitest';
import { loadArtifactsFile } from '../../src/artifacts/list.js';
import { buildableVersion, sandboxImage } from '../../src/versions/buildable.js';
import {
  kubernetesPackage,
  kubernetesSupport,
  parseKubernetesVersion,
} from '../../src/versions/kubernetes-support.js';
import { loadVersions } from '../../src/versions/versions.js';

const versions = loadVersions();
const table = loadArtifactsFile()['kubeadm-images'];
const issue = (path: (string | number)[], message: string) => ({
  file: 'spec.yaml',
  path: path.join('.'),
  message,
});
const check = (kubernetesVersion: string, overrides: Record<string, string> = {}) =>
  buildableVersion({
    kubernetesVersion,
    path: ['kubernetes', 'version'],
    versions: { ...versions, ...overrides },
    kubeadmImagesByMinor: table,
    issue,
  });

describe('the Kubernetes versions kubemix builds', () => {
  it('builds the pinned default, a 1.37 release, with its kubeadm images and no warning', () => {
    expect(versions['kubernetes']).toMatch(/^1\.37\.\d+$/);
    const result = check(versions['kubernetes']!);
    expect(result).toEqual({ issues: [], warnings: [], kubeadmImages: table['1.37'] });
    // containerd's sandbox on every node is kubeadm's pause for the version.
    expect(sandboxImage(result.kubeadmImages!)).toBe(`registry.k8s.io/pause:${table['1.37']!.pause}`);
  });

  it('builds 1.36 and refuses 1.35 and 1.38 with one issue naming the field', () => {
    expect(check('v1.36.4').issues).toEqual([]);
    for (const [version, words] of [
      ['1.35.9', 'older than the oldest version kubemix builds, 1.36'],
      ['1.38.0', 'newer than the newest version kubemix builds, 1.37'],
      ['1.38.0-beta.0', 'newer than the newest version kubemix builds, 1.37'],
    ] as const) {
      const { issues } = check(version);
      expect(issues).toHaveLength(1);
      expect(issues[0]).toMatchObject({ file: 'spec.yaml', path: 'kubernetes.version' });
      expect(issues[0]!.message).toContain(`Kubernetes ${version} is ${words}`);
    }
  });

  it('builds a pre-release of a supported minor with a warning, from the prerelease repository', () => {
    const result = check('1.37.0-rc.1');
    expect(result.issues).toEqual([]);
    expect(result.warnings).toEqual([expect.stringContaining('Kubernetes 1.37.0-rc.1 is a pre-release')]);
    expect(kubernetesPackage(parseKubernetesVersion('1.37.0-rc.1')!)).toEqual({
      channel: 'prerelease',
      version: '1.37.0~rc.1',
    });
    expect(kubernetesPackage(parseKubernetesVersion('v1.37.2')!)).toEqual({
      channel: 'stable',
      version: '1.37.2',
    });
  });

  it('refuses a supported minor whose containerd minimum a spec emptied, naming the entry', () => {
    expect(check('1.37.2', { 'containerd-minimum-1.37': '' }).issues).toEqual([
      {
        file: 'spec.yaml',
        path: 'versions.containerd-minimum-1.37',
        message: expect.stringContaining('Kubernetes 1.37 needs containerd'),
      },
    ]);
  });

  it('refuses a minor without a kubeadm image list', () => {
    const { issues } = buildableVersion({
      kubernetesVersion: '1.37.2',
      path: ['versions', 'kubernetes'],
      versions,
      kubeadmImagesByMinor: { '1.36': table['1.36']! },
      issue,
    });
    expect(issues).toEqual([
      {
        file: 'spec.yaml',
        path: 'versions.kubernetes',
        message: expect.stringContaining('no kubeadm-images entry for 1.37'),
      },
    ]);
  });

  it('has a containerd minimum and a kubeadm image list for exactly the supported minors', () => {
    const minimums = Object.keys(versions)
      .filter((k) => k.startsWith('containerd-minimum-'))
      .map((k) => k.slice('containerd-minimum-'.length));
    expect(minimums).toEqual(['1.36', '1.37']);
    expect(Object.keys(table)).toEqual(['1.36', '1.37']);
    for (const minor of minimums) expect(kubernetesSupport(`${minor}.0`).kind).toBe('supported');
  });

  it('says what a malformed version should look like', () => {
    expect(kubernetesSupport('1.37')).toMatchObject({
      kind: 'malformed',
      message: '"1.37" is not a Kubernetes version such as 1.37.2 (or a pre-release such as 1.37.0-rc.1)',
    });
  });

  it('refuses pinned containerd releases below the minimum, Linux and Windows, naming each entry', () => {
    const { issues } = check('1.37.2', { 'containerd-linux': '2.2.9', containerd: '2.2.9' });
    expect(issues.map((i) => [i.path, i.message])).toEqual([
      [
        'versions.containerd-linux',
        'containerd 2.2.9 is below the minimum for Kubernetes 1.37, 2.4.0+ or 2.3.0+ (containerd RELEASES.md, Kubernetes Support)',
      ],
      [
        'versions.containerd',
        'containerd 2.2.9 is below the minimum for Kubernetes 1.37, 2.4.0+ or 2.3.0+ (containerd RELEASES.md, Kubernetes Support)',
      ],
    ]);
    expect(check('1.36.4', { 'containerd-linux': '2.2.9', containerd: '2.2.9' }).issues).toEqual([]);
  });

  it("refuses a flannel image older than the release kubemix's manifest follows", () => {
    expect(check('1.37.2', { flannel: 'ghcr.io/flannel-io/flannel:v0.28.8' }).issues).toEqual([
      {
        file: 'spec.yaml',
        path: 'versions.flannel',
        message:
          "flannel ghcr.io/flannel-io/flannel:v0.28.8 is older than v0.28.9, the release kubemix's flannel manifest follows (its readiness probe asks flanneld's /readyz, served from v0.28.9 on)",
      },
    ]);
    for (const newer of ['v0.28.9', 'v0.29.0', 'v1.0.0'])
      expect(check('1.37.2', { flannel: `ghcr.io/flannel-io/flannel:${newer}` }).issues).toEqual([]);
  });

  it('refuses a containerd minimum that admits containerd 1.x, which cannot read the configuration kubemix writes', () => {
    expect(check('1.36.4', { 'containerd-minimum-1.36': '2.3.0 2.2.0 1.7.28' }).issues).toEqual([
      {
        file: 'spec.yaml',
        path: 'versions.containerd-minimum-1.36',
        message:
          'admits containerd 1.7.28: kubemix configures containerd with configuration version 3, which containerd 1.x cannot read',
      },
    ]);
  });
});
