import { describe, expect, it } from 'vitest';
import {
  KUBEADM_RELEASES,
  kubeadmImageList,
  kubeadmRelease,
  NotModelledError,
} from '../../fixtures/lab/kubernetes-releases.js';
import { loadArtifactsFile } from '../../src/artifacts/list.js';
import { loadVersions } from '../../src/versions/versions.js';
import { OLDEST_TESTED_KUBERNETES } from '../helpers/kubernetes-test-versions.js';

// What `kubeadm config images list --kubernetes-version V` prints with the kubeadm of release R,
// derived from R's cmd/kubeadm/app/constants/constants.go and images/images.go (the rows of
// fixtures/lab/kubernetes-releases.ts say where); the expected lists are those files' values.
describe('kubeadm config images list, per modelled release', () => {
  it('kubeadm v1.37.2: CoreDNS v1.14.6, pause 3.10.2, and etcd 3.7.0-0 through the fallback to key 36', () => {
    expect(kubeadmImageList(kubeadmRelease('v1.37.2'), 'v1.37.2')).toEqual([
      'registry.k8s.io/kube-apiserver:v1.37.2',
      'registry.k8s.io/kube-controller-manager:v1.37.2',
      'registry.k8s.io/kube-scheduler:v1.37.2',
      'registry.k8s.io/kube-proxy:v1.37.2',
      'registry.k8s.io/coredns/coredns:v1.14.6',
      'registry.k8s.io/pause:3.10.2',
      'registry.k8s.io/etcd:3.7.0-0',
    ]);
  });

  it('kubeadm v1.36.4: CoreDNS v1.14.2, pause 3.10.2, etcd 3.6.8-0 (SupportedEtcdVersion 36)', () => {
    expect(kubeadmImageList(kubeadmRelease('1.36.4'), '1.36.4').slice(4)).toEqual([
      'registry.k8s.io/coredns/coredns:v1.14.2',
      'registry.k8s.io/pause:3.10.2',
      'registry.k8s.io/etcd:3.6.8-0',
    ]);
  });

  it('kubeadm v1.31.2: CoreDNS v1.11.3, pause 3.10, etcd 3.5.15-0', () => {
    expect(kubeadmImageList(kubeadmRelease('v1.31.2'), 'v1.31.2').slice(4)).toEqual([
      'registry.k8s.io/coredns/coredns:v1.11.3',
      'registry.k8s.io/pause:3.10',
      'registry.k8s.io/etcd:3.5.15-0',
    ]);
  });

  it('CoreDNS and pause are the binary’s, etcd follows --kubernetes-version through its table', () => {
    // kubeadm v1.37.2 asked for v1.36.4 names v1.36.4's control plane but its own etcd row 36
    // (3.7.0-0), not what kubeadm v1.36.4 names (3.6.8-0).
    expect(kubeadmImageList(kubeadmRelease('v1.37.2'), 'v1.36.4')).toEqual([
      'registry.k8s.io/kube-apiserver:v1.36.4',
      'registry.k8s.io/kube-controller-manager:v1.36.4',
      'registry.k8s.io/kube-scheduler:v1.36.4',
      'registry.k8s.io/kube-proxy:v1.36.4',
      'registry.k8s.io/coredns/coredns:v1.14.6',
      'registry.k8s.io/pause:3.10.2',
      'registry.k8s.io/etcd:3.7.0-0',
    ]);
    // Below the table's lowest key: its lowest entry (constants.go EtcdSupportedVersion).
    expect(kubeadmImageList(kubeadmRelease('v1.31.2'), 'v1.28.0').at(-1)).toBe(
      'registry.k8s.io/etcd:3.5.15-0',
    );
  });

  it('a kubeadm release without a row is refused, naming the file to add it to', () => {
    expect(() => kubeadmRelease('v1.35.4')).toThrow(NotModelledError);
    expect(() => kubeadmRelease('v1.35.4')).toThrow(
      /^kubemix lab: not modelled: kubeadm v1\.35\.4 \(fixtures\/lab\/kubernetes-releases\.ts KUBEADM_RELEASES/,
    );
    expect(() => kubeadmRelease('1.37.0-rc.1')).toThrow(NotModelledError);
  });

  it('every row names its source and no release twice', () => {
    const releases = KUBEADM_RELEASES.flatMap((r) => r.releases);
    expect(new Set(releases).size).toBe(releases.length);
    for (const row of KUBEADM_RELEASES) expect(row.source).toMatch(/^k8s\.io\/kubernetes v\d/);
  });
});

// The lab reads kubeadm's constants, never kubemix's playbooks/artifacts.yaml: the product's table
// is checked against the lab's for the releases kubemix builds and the tests use.
describe("the product's kubeadm-images table agrees with kubeadm's own lists", () => {
  const table = loadArtifactsFile()['kubeadm-images'];
  for (const version of [loadVersions()['kubernetes']!, OLDEST_TESTED_KUBERNETES]) {
    it(`Kubernetes ${version}`, () => {
      const minor = version.split('.').slice(0, 2).join('.');
      const entry = table[minor]!;
      const product = [
        `registry.k8s.io/coredns/coredns:${entry.coredns}`,
        `registry.k8s.io/pause:${entry.pause}`,
        `registry.k8s.io/etcd:${entry.etcd}`,
      ];
      expect(product).toEqual(kubeadmImageList(kubeadmRelease(version), version).slice(4));
    });
  }
});
