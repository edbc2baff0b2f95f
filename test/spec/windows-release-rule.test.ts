import { describe, expect, it } from 'vitest';
import { specView } from '../../src/spec/spec-view.js';
import { windowsReleaseRule } from '../../src/spec/windows-release-rule.js';

const rule = (spec: Record<string, unknown>) => windowsReleaseRule(specView(spec));
const windows = { nodes: { workers: [{ name: 'win', os: 'windows', count: 1 }] } };
const linux = { nodes: { workers: [{ name: 'lin', os: 'linux', count: 1 }] } };

describe('windowsReleaseRule', () => {
  it('refuses windows-container-networking 0.3.1 at versions.windows-cni when the cluster has Windows workers', () => {
    expect(rule({ ...windows, versions: { 'windows-cni': '0.3.1', 'windows-cni-sha256': '' } })).toEqual([
      {
        path: ['versions', 'windows-cni'],
        message: expect.stringContaining(
          'microsoft/windows-container-networking v0.3.1: its asset was renamed',
        ),
      },
    ]);
  });

  it('leaves a cluster without Windows workers alone: nothing of these releases is installed', () => {
    expect(
      rule({ ...linux, versions: { 'windows-cni': '0.3.1', flannel: 'flannel/flannel:v0.19.2' } }),
    ).toEqual([]);
  });

  it('holds flanneld.exe to the release of the flannel image a spec moves', () => {
    expect(rule({ ...windows, versions: { flannel: 'docker.io/flannel/flannel:v0.19.2' } })).toEqual([
      {
        path: ['versions', 'flannel'],
        message:
          'cannot be installed: flannel-io/flannel v0.19.2 is older than v0.20.0, the oldest release whose release process kubemix read at its tag: use v0.20.0 or later',
      },
    ]);
  });

  it('accepts the pinned releases', () => {
    expect(rule(windows)).toEqual([]);
  });
});
