import { describe, expect, it } from 'vitest';
import {
  checkManifestVars,
  linuxWorkload,
  ManifestError,
  manifestVarsFromPlanVars,
  renderManifestObjects,
  windowsWorkload,
} from '../../src/manifests/index.js';
import { loadVersions } from '../../src/versions/versions.js';
import { DEFAULT_VARS, mixedSpec, varsFromSpec } from './manifest-vars.js';

const versionsFileHasNo = (key: string) => !(key in loadVersions());

const planVars = (versions: Record<string, string> = {}) => ({
  pod_cidr: '10.244.0.0/16',
  service_cidr: '10.96.0.0/12',
  flannel_backend: 'vxlan',
  flannel_vni: 4096,
  flannel_port: 4789,
  versions: { ...loadVersions(), ...versions },
});
const extra = {
  kubernetesVersion: loadVersions()['kubernetes']!,
  apiServerHost: '10.0.0.11',
  apiServerPort: 6443,
  windowsVersions: ['2022' as const],
  linuxWorkers: 1,
};

describe('manifestVarsFromPlanVars', () => {
  it('builds every var from the plan vars and the pinned versions file', () => {
    const versions = loadVersions();
    expect(DEFAULT_VARS).toEqual({
      pod_cidr: '10.244.0.0/16',
      service_cidr: '10.96.0.0/12',
      flannel_backend: 'vxlan',
      flannel_vni: 4096,
      flannel_port: 4789,
      api_server_host: '10.0.0.11',
      api_server_port: 6443,
      windows_workloads: [windowsWorkload('2022')],
      // mixedSpec has no Linux worker: verify's Linux workload runs on the controller.
      linux_workload: linuxWorkload(0),
      images: {
        flannel: versions['flannel'],
        flannel_cni_plugin: versions['flannel-cni-plugin'],
        windows_flannel: versions['windows-hostprocess-image'],
        windows_kube_proxy: `docker.io/sigwindowstools/kube-proxy:v${versions['kubernetes']}-calico-hostprocess`,
        agnhost: versions['agnhost'],
      },
      // Covered entry by entry in windows-flannel-downloads.test.ts.
      windows_flannel_downloads: expect.any(Array),
    });
  });

  it('derives the Windows kube-proxy image from the cluster version, not from a pin', () => {
    expect(versionsFileHasNo('windows-kube-proxy-image')).toBe(true);
    for (const version of ['1.33.4', 'v1.35.0']) {
      const vars = manifestVarsFromPlanVars(planVars(), { ...extra, kubernetesVersion: version });
      expect(vars.images.windows_kube_proxy).toBe(
        `docker.io/sigwindowstools/kube-proxy:v${version.replace(/^v/, '')}-calico-hostprocess`,
      );
    }
    expect(() => manifestVarsFromPlanVars(planVars(), { ...extra, kubernetesVersion: 'latest' })).toThrow(
      'plan vars: the Kubernetes version "latest" is not MAJOR.MINOR.PATCH',
    );
  });

  it("renders kube-proxy-windows with the image of the spec's Kubernetes version", () => {
    const vars = varsFromSpec({ ...mixedSpec(), kubernetes: { version: '1.35.1' } });
    const ds = renderManifestObjects('kube-proxy-windows', vars).find((o) => o.kind === 'DaemonSet')!;
    const pod = (ds['spec'] as { template: { spec: { containers: { image: string }[] } } }).template.spec;
    expect(pod.containers[0]!.image).toBe('docker.io/sigwindowstools/kube-proxy:v1.35.1-calico-hostprocess');
  });

  it('takes a full image reference from a versions override as it is, and a bare tag with the upstream repository', () => {
    const vars = manifestVarsFromPlanVars(
      planVars({
        flannel: 'registry.lab:5000/flannel/flannel:v0.26.0',
        'windows-kube-proxy-image': 'v1.31.2-calico-hostprocess',
      }),
      extra,
    );
    expect(vars.images.flannel).toBe('registry.lab:5000/flannel/flannel:v0.26.0');
    expect(vars.images.windows_kube_proxy).toBe(
      'docker.io/sigwindowstools/kube-proxy:v1.31.2-calico-hostprocess',
    );
  });

  it('names a missing versions entry or plan var', () => {
    const { versions, ...rest } = planVars();
    const withoutFlannel = { ...versions } as Record<string, string>;
    delete withoutFlannel['flannel-cni-plugin'];
    expect(() => manifestVarsFromPlanVars({ ...rest, versions: withoutFlannel }, extra)).toThrow(
      'plan vars: versions entry "flannel-cni-plugin" is missing',
    );
    const { flannel_vni: _vni, ...noVni } = planVars();
    expect(() => manifestVarsFromPlanVars(noVni, extra)).toThrow(
      'plan vars: variable "flannel_vni" is missing: expected an integer 1-16777215',
    );
  });

  it('rejects an API server port or host that cannot work', () => {
    expect(() => manifestVarsFromPlanVars(planVars(), { ...extra, apiServerPort: 0 })).toThrow(
      'variable "api_server_port" is invalid (0)',
    );
    expect(() => manifestVarsFromPlanVars(planVars(), { ...extra, apiServerHost: '' })).toThrow(
      'variable "api_server_host" is invalid ("")',
    );
  });
});

describe('checkManifestVars', () => {
  it('accepts complete vars and rejects a non-object', () => {
    expect(() => checkManifestVars('m', DEFAULT_VARS)).not.toThrow();
    expect(() => checkManifestVars('m', null)).toThrow(
      new ManifestError('m', 'the manifest vars must be an object'),
    );
  });

  it('rejects a fractional or out-of-range VNI', () => {
    expect(() => checkManifestVars('m', { ...DEFAULT_VARS, flannel_vni: 4096.5 })).toThrow(
      '"flannel_vni" is invalid (4096.5)',
    );
    expect(() => checkManifestVars('m', { ...DEFAULT_VARS, flannel_vni: 2 ** 24 })).toThrow(
      '"flannel_vni" is invalid (16777216)',
    );
  });

  it('rejects a Windows workload that is not the mapping of its version', () => {
    const tampered = { ...windowsWorkload('2022'), image: 'mcr.microsoft.com/windows/servercore:ltsc2019' };
    expect(() => checkManifestVars('m', { ...DEFAULT_VARS, windows_workloads: [tampered] })).toThrow(
      'm: variable "windows_workloads[0]" is invalid',
    );
    expect(() => checkManifestVars('m', { ...DEFAULT_VARS, windows_workloads: undefined })).toThrow(
      'm: variable "windows_workloads" is missing: expected a list of Windows workloads',
    );
  });
});

describe("verify's Linux workload", () => {
  it('runs on the Linux workers, or on the controllers (tolerating their taint) when there are none', () => {
    expect(manifestVarsFromPlanVars(planVars(), extra).linux_workload).toMatchObject({
      name: 'linux-netexec',
      client: 'linux-netexec-client',
      on_controllers: false,
    });
    expect(
      manifestVarsFromPlanVars(planVars(), { ...extra, linuxWorkers: 0 }).linux_workload.on_controllers,
    ).toBe(true);
  });

  it('takes the agnhost image from the versions entry; a bare tag gets the e2e registry', () => {
    expect(manifestVarsFromPlanVars(planVars(), extra).images.agnhost).toMatch(
      /^registry\.k8s\.io\/e2e-test-images\/agnhost:\d+\.\d+\.\d+$/,
    );
    expect(manifestVarsFromPlanVars(planVars({ agnhost: '2.63.0' }), extra).images.agnhost).toBe(
      'registry.k8s.io/e2e-test-images/agnhost:2.63.0',
    );
    expect(() => manifestVarsFromPlanVars(planVars({ agnhost: '' }), extra)).toThrow(
      'versions entry "agnhost" is invalid ("")',
    );
  });

  it('rejects a Linux workload that is not the mapping', () => {
    const tampered = { ...linuxWorkload(1), http_port: 9090 };
    expect(() => checkManifestVars('m', { ...DEFAULT_VARS, linux_workload: tampered })).toThrow(
      'm: variable "linux_workload" is invalid',
    );
    expect(() => checkManifestVars('m', { ...DEFAULT_VARS, linux_workload: undefined })).toThrow(
      'm: variable "linux_workload" is missing',
    );
  });
});

describe('one workload per Windows version present', () => {
  it('drops repeats and orders the versions', () => {
    const vars = manifestVarsFromPlanVars(planVars(), {
      ...extra,
      windowsVersions: ['2022', '2019', '2022'],
    });
    expect(vars.windows_workloads.map((w) => w.name)).toEqual(['win-webserver-2019', 'win-webserver-2022']);
    expect(manifestVarsFromPlanVars(planVars(), { ...extra, windowsVersions: [] }).windows_workloads).toEqual(
      [],
    );
  });
});
