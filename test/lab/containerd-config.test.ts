import { describe, expect, it } from 'vitest';
import { NotModelledError } from '../../fixtures/lab/kubernetes-releases.js';
import {
  ContainerdConfigError,
  containerdRelease,
  resolveSandboxImage,
} from '../../fixtures/lab/standins/tools/containerd-config.js';

// containerd's sandbox image from /etc/containerd/config.toml, per containerd release (sources in
// fixtures/lab/standins/tools/containerd-config.ts CONTAINERD_RELEASES).
const v2_3 = containerdRelease('v2.3.4');
const v1_7 = containerdRelease('1.7.24~ds1');
const v1_6 = containerdRelease('1.6.20~ds1');

const V3 = `version = 3
[plugins."io.containerd.cri.v1.images".pinned_images]
  sandbox = "registry.k8s.io/pause:3.10.2"
`;
const V2 = `version = 2
[plugins."io.containerd.grpc.v1.cri"]
  sandbox_image = "registry.k8s.io/pause:3.10"
`;

describe('containerd 2.3: the sandbox image from config.toml', () => {
  it('version 3: plugins."io.containerd.cri.v1.images".pinned_images.sandbox', () => {
    expect(resolveSandboxImage(V3, v2_3)).toBe('registry.k8s.io/pause:3.10.2');
  });

  it('version 2: grpc.v1.cri sandbox_image is migrated to pinned_images (migrateConfig)', () => {
    expect(resolveSandboxImage(V2, v2_3)).toBe('registry.k8s.io/pause:3.10');
  });

  it('version 1: plugins.cri is the grpc.v1.cri plugin (v1MigratePluginName)', () => {
    expect(resolveSandboxImage('[plugins.cri]\n  sandbox_image = "example.com/pause:1"\n', v2_3)).toBe(
      'example.com/pause:1',
    );
  });

  it('a file below version 4 with both: the migrated sandbox_image overwrites pinned_images', () => {
    expect(
      resolveSandboxImage(`${V3}[plugins."io.containerd.grpc.v1.cri"]\n  sandbox_image = "old:1"\n`, v2_3),
    ).toBe('old:1');
    // At the current version nothing is migrated.
    expect(
      resolveSandboxImage(
        `${V3.replace('version = 3', 'version = 4')}[plugins."io.containerd.grpc.v1.cri"]\n  sandbox_image = "old:1"\n`,
        v2_3,
      ),
    ).toBe('registry.k8s.io/pause:3.10.2');
  });

  it('no file, or a file without one: DefaultSandboxImage pause:3.10.2', () => {
    expect(resolveSandboxImage(undefined, v2_3)).toBe('registry.k8s.io/pause:3.10.2');
    expect(
      resolveSandboxImage('version = 3\n[grpc]\n  address = "/run/containerd/containerd.sock"\n', v2_3),
    ).toBe('registry.k8s.io/pause:3.10.2');
  });

  it('a file it cannot parse or a version above 4 stops containerd with its words', () => {
    expect(() => resolveSandboxImage('version = 3\n[plugins\n', v2_3)).toThrow(ContainerdConfigError);
    expect(() => resolveSandboxImage('version = 3\n[plugins\n', v2_3)).toThrow(
      /^containerd: failed to unmarshal TOML at row 2 column \d+: kubemix lab: /,
    );
    expect(() => resolveSandboxImage('version = 5\n', v2_3)).toThrow(
      'containerd: failed to load TOML from /etc/containerd/config.toml: expected containerd config version equal to or less than `4`, got `5`',
    );
  });
});

describe("Debian's containerd 1.x", () => {
  it('1.7.24: version 2 sandbox_image; no file: pause:3.8; version 3 is refused', () => {
    expect(resolveSandboxImage(V2, v1_7)).toBe('registry.k8s.io/pause:3.10');
    expect(resolveSandboxImage(undefined, v1_7)).toBe('registry.k8s.io/pause:3.8');
    expect(() => resolveSandboxImage(V3, v1_7)).toThrow(
      'containerd: failed to load TOML from /etc/containerd/config.toml: unsupported config version `3`',
    );
  });

  it('1.6.20 checks no version: a version 3 file leaves its CRI at the default pause:3.6', () => {
    expect(resolveSandboxImage(V3, v1_6)).toBe('registry.k8s.io/pause:3.6');
    expect(resolveSandboxImage(V2, v1_6)).toBe('registry.k8s.io/pause:3.10');
  });

  it('only 1.x reports its sandbox image in the CRI status (what kubeadm compares)', () => {
    expect([v1_6, v1_7, v2_3].map((r) => r.statusReportsSandbox)).toEqual([true, true, false]);
  });
});

it('a containerd release the lab has no row for is refused', () => {
  expect(() => containerdRelease('v1.7.19')).toThrow(NotModelledError);
  expect(() => containerdRelease('v2.0.0')).toThrow(/^kubemix lab: not modelled: containerd v2\.0\.0/);
});
