import { describe, expect, it } from 'vitest';
import { imageTagVersion, windowsKubeProxySkewRule } from '../../src/spec/kube-proxy-skew-rule.js';
import { specView } from '../../src/spec/spec-view.js';
import { loadVersions } from '../../src/versions/versions.js';

const rule = (spec: Record<string, unknown>) => windowsKubeProxySkewRule(specView(spec));
const withImage = (image: string, extra: Record<string, unknown> = {}) => ({
  ...extra,
  versions: { ...(extra['versions'] as object | undefined), 'windows-kube-proxy-image': image },
});

describe('imageTagVersion', () => {
  it('reads the version from a full reference, a bare tag, a registry with a port and a digest', () => {
    expect(imageTagVersion('sigwindowstools/kube-proxy:v1.33.2-calico-hostprocess')).toBe('1.33.2');
    expect(imageTagVersion('v1.31.2-calico-hostprocess')).toBe('1.31.2');
    expect(imageTagVersion('registry.lab:5000/kube-proxy:v1.32.0@sha256:abc')).toBe('1.32.0');
    expect(imageTagVersion('registry.lab:5000/kube-proxy:latest')).toBeUndefined();
    expect(imageTagVersion('registry.lab:5000/kube-proxy')).toBeUndefined();
  });
});

describe('windowsKubeProxySkewRule (kubernetes.io/releases/version-skew-policy/#kube-proxy)', () => {
  it('accepts no override, the same minor (any patch) and up to three minor versions older', () => {
    expect(rule({ kubernetes: { version: '1.33.2' } })).toEqual([]);
    expect(rule(withImage('v1.33.9-calico-hostprocess', { kubernetes: { version: '1.33.2' } }))).toEqual([]);
    expect(rule(withImage('v1.30.0-calico-hostprocess', { kubernetes: { version: '1.33.2' } }))).toEqual([]);
  });

  it('refuses a newer kube-proxy and one four minors older, at the versions entry', () => {
    const newer = rule(withImage('v1.34.0-calico-hostprocess', { kubernetes: { version: 'v1.33.2' } }));
    expect(newer).toEqual([
      {
        path: ['versions', 'windows-kube-proxy-image'],
        message: expect.stringContaining("kube-proxy 1.34.0 is newer than the cluster's Kubernetes 1.33.2"),
      },
    ]);
    const old = rule(withImage('v1.29.5-calico-hostprocess', { kubernetes: { version: '1.33.2' } }));
    expect(old[0]?.message).toContain('is 4 minor versions older');
  });

  it('allows only two minors for a kube-proxy below 1.25', () => {
    expect(rule(withImage('v1.22.0', { kubernetes: { version: '1.24.0' } }))).toEqual([]);
    expect(rule(withImage('v1.22.0', { kubernetes: { version: '1.25.0' } }))[0]?.message).toContain(
      'at most 2 minor versions older',
    );
  });

  it('compares with versions.kubernetes, else the pinned version, as the plan does', () => {
    expect(rule(withImage('v1.36.0', { versions: { kubernetes: '1.35.0' } }))[0]?.message).toContain(
      "the cluster's Kubernetes 1.35.0",
    );
    const pinned = loadVersions()['kubernetes']!;
    const [major, minor] = pinned.split('.').map(Number);
    expect(rule(withImage(`v${major}.${minor! + 1}.0`))[0]?.message).toContain(
      `the cluster's Kubernetes ${pinned}`,
    );
  });

  it('refuses an override whose tag does not name a version', () => {
    expect(rule(withImage('registry.lab/kube-proxy:latest'))[0]?.message).toContain(
      'cannot tell the kube-proxy version of "registry.lab/kube-proxy:latest"',
    );
  });
});
