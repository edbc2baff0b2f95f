import { parseKubernetesVersion } from '../versions/kubernetes-support.js';
import { ManifestError } from './errors.js';
import { type LinuxWorkload, linuxWorkload } from './linux-workload.js';
import { type WindowsFlannelDownload, windowsFlannelDownloads } from './windows-flannel-downloads.js';
import {
  isWindowsVersion,
  type WindowsVersion,
  type WindowsWorkload,
  windowsWorkload,
  windowsWorkloads,
} from './windows-workloads.js';

/** Container images the manifests pull, as full references (`registry/repo:tag`). */
export interface ManifestImages {
  /** Linux flanneld, e.g. `ghcr.io/flannel-io/flannel:v0.28.9`. */
  flannel: string;
  /** Linux flannel CNI plugin installer, e.g. `ghcr.io/flannel-io/flannel-cni-plugin:v1.9.1-flannel3`. */
  flannel_cni_plugin: string;
  /**
   * The image Windows flannel's HostProcess DaemonSet runs: Microsoft's HostProcess base image (no
   * program of its own; the start script installs flannel's binaries: windows-flannel-downloads.ts).
   */
  windows_flannel: string;
  /**
   * Windows kube-proxy HostProcess image: `docker.io/sigwindowstools/kube-proxy:v<cluster version>-calico-hostprocess`
   * unless the versions entry `windows-kube-proxy-image` overrides it.
   */
  windows_kube_proxy: string;
  /** agnhost, verify's Linux workload (`netexec`), e.g. `registry.k8s.io/e2e-test-images/agnhost:2.66.1`. */
  agnhost: string;
}

/**
 * Every variable the manifest templates use. Names are the template's own (snake_case, like
 * the plan vars they come from).
 */
export interface ManifestVars {
  /** Cluster pod network, flannel's `Network` (e.g. `10.244.0.0/16`). */
  pod_cidr: string;
  /** Service network (e.g. `10.96.0.0/12`); excluded from outbound NAT on Windows. */
  service_cidr: string;
  /** Flannel backend type; Windows overlay needs `vxlan`. */
  flannel_backend: string;
  /** VXLAN network identifier; Windows needs 4096. It also names the HNS network `flannel.<vni>`. */
  flannel_vni: number;
  /** VXLAN UDP port; Windows needs 4789. */
  flannel_port: number;
  /** Address of the real API server (not the service VIP), for Windows flanneld. */
  api_server_host: string;
  /** Port of the real API server. */
  api_server_port: number;
  /**
   * One workload per Windows Server version of the cluster's Windows nodes (windows-workloads.ts):
   * its RuntimeClass, build, image and Deployment name. Empty without Windows nodes.
   */
  windows_workloads: WindowsWorkload[];
  /** verify's Linux workload (linux-workload.ts): on the Linux workers, or on the controllers when there are none. */
  linux_workload: LinuxWorkload;
  images: ManifestImages;
  /**
   * What Windows flannel's start script installs, with the pinned digests ('' = taken at install);
   * empty without Windows nodes.
   */
  windows_flannel_downloads: WindowsFlannelDownload[];
}

/** Values the plan vars do not hold, known once the control plane and nodes are chosen. */
export interface ManifestVarsExtra {
  /** The cluster's Kubernetes version (`1.31.2`, a leading `v` is dropped): the Windows kube-proxy image follows it. */
  kubernetesVersion: string;
  apiServerHost: string;
  apiServerPort: number;
  /** The Windows Server versions of the cluster's Windows nodes (any order, repeats allowed). */
  windowsVersions: WindowsVersion[];
  /** How many Linux workers the cluster has (0: verify's Linux workload runs on the controllers). */
  linuxWorkers: number;
}

const STRING_VARS = ['pod_cidr', 'service_cidr', 'flannel_backend', 'api_server_host'] as const;
const IMAGE_VARS = [
  'flannel',
  'flannel_cni_plugin',
  'windows_flannel',
  'windows_kube_proxy',
  'agnhost',
] as const;
const CIDR = /^\d{1,3}(\.\d{1,3}){3}\/\d{1,2}$|^[0-9a-fA-F:]+\/\d{1,3}$/;

function integerIn(value: unknown, min: number, max: number): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= min && value <= max;
}

function describe(value: unknown): string {
  return value === undefined ? 'missing' : `invalid (${JSON.stringify(value)})`;
}

/**
 * Checks a vars object at run time (callers may build it from untyped data) and throws a
 * ManifestError naming the first bad variable.
 */
export function checkManifestVars(manifest: string, vars: unknown): asserts vars is ManifestVars {
  const fail = (name: string, problem: string): never => {
    throw new ManifestError(manifest, `variable "${name}" is ${problem}`, { variable: name });
  };
  if (!vars || typeof vars !== 'object')
    throw new ManifestError(manifest, 'the manifest vars must be an object');
  const v = vars as Record<string, unknown>;
  for (const name of STRING_VARS) {
    if (typeof v[name] !== 'string' || v[name] === '')
      fail(name, `${describe(v[name])}: expected a non-empty string`);
  }
  for (const name of ['pod_cidr', 'service_cidr'] as const) {
    if (!CIDR.test(v[name] as string))
      fail(name, `${describe(v[name])}: expected a CIDR such as 10.244.0.0/16`);
  }
  if (!integerIn(v['flannel_vni'], 1, 2 ** 24 - 1))
    fail('flannel_vni', `${describe(v['flannel_vni'])}: expected an integer 1-16777215`);
  for (const name of ['flannel_port', 'api_server_port'] as const) {
    if (!integerIn(v[name], 1, 65535)) fail(name, `${describe(v[name])}: expected a port number 1-65535`);
  }
  const workloads = v['windows_workloads'];
  if (!Array.isArray(workloads))
    fail('windows_workloads', `${describe(workloads)}: expected a list of Windows workloads`);
  for (const [i, w] of (workloads as unknown[]).entries()) {
    const version = (w as { version?: unknown } | null)?.version;
    // Each entry must be exactly the mapping's: the templates, the RuntimeClasses and the
    // pre-pull must never disagree about a version's build or image.
    if (!isWindowsVersion(version) || JSON.stringify(w) !== JSON.stringify(windowsWorkload(version)))
      fail(
        `windows_workloads[${i}]`,
        `${describe(w)}: expected the workload of a supported Windows Server version (src/manifests/windows-workloads.ts)`,
      );
  }
  const linux = v['linux_workload'] as { on_controllers?: unknown } | undefined;
  // Exactly the mapping's, as for the Windows workloads: the template and verify.yml share it.
  if (
    typeof linux?.on_controllers !== 'boolean' ||
    JSON.stringify(linux) !== JSON.stringify(linuxWorkload(linux.on_controllers ? 0 : 1))
  )
    fail(
      'linux_workload',
      `${describe(linux)}: expected the Linux workload src/manifests/linux-workload.ts makes`,
    );
  if (!Array.isArray(v['windows_flannel_downloads']))
    fail(
      'windows_flannel_downloads',
      `${describe(v['windows_flannel_downloads'])}: expected the list windowsFlannelDownloads makes`,
    );
  const images = v['images'];
  if (!images || typeof images !== 'object') return fail('images', describe(images));
  for (const name of IMAGE_VARS) {
    const image = (images as Record<string, unknown>)[name];
    if (typeof image !== 'string' || image === '')
      fail(`images.${name}`, `${describe(image)}: expected an image reference`);
  }
}

/** The Windows kube-proxy image: the versions override, else the tag built for the cluster's version. */
function windowsKubeProxyImage(versions: Record<string, unknown>, kubernetesVersion: string): string {
  const override = versions['windows-kube-proxy-image'];
  if (typeof override === 'string' && override !== '')
    return imageRef(WINDOWS_KUBE_PROXY_REPOSITORY, override);
  const version = parseKubernetesVersion(kubernetesVersion);
  if (!version)
    throw new ManifestError(
      'plan vars',
      `the Kubernetes version ${JSON.stringify(kubernetesVersion)} is not MAJOR.MINOR.PATCH`,
      {
        variable: 'kubernetes_version',
      },
    );
  return `${WINDOWS_KUBE_PROXY_REPOSITORY}:v${version.text}${WINDOWS_KUBE_PROXY_SUFFIX}`;
}

/** `repo:tag` from a versions entry that is either a bare tag or already a full image reference. */
function imageRef(defaultRepository: string, entry: string): string {
  return entry.includes('/') ? entry : `${defaultRepository}:${entry}`;
}

// sig-windows-tools builds sigwindowstools/kube-proxy:<registry.k8s.io kube-proxy tag>-calico-hostprocess
// for every release from 1.33 on (.github/workflows/sync-kube-proxy-images.yaml, #395, commit
// 77474f5); older tags exist where someone built them by hand (build-kube-proxy-images.yml).
const WINDOWS_KUBE_PROXY_REPOSITORY = 'docker.io/sigwindowstools/kube-proxy';
const WINDOWS_KUBE_PROXY_SUFFIX = '-calico-hostprocess';
const WINDOWS_HOSTPROCESS_REPOSITORY =
  'mcr.microsoft.com/oss/kubernetes/windows-host-process-containers-base-image';

/**
 * Builds the manifest vars from the plan's vars (src/plan/build-plan.ts: pod_cidr,
 * service_cidr, flannel_*, versions{...}) plus the API server address, the Windows versions and
 * the number of Linux workers.
 * Images come from the versions entries `flannel`, `flannel-cni-plugin`,
 * `windows-hostprocess-image` and `agnhost` (a bare tag gets the upstream repository); the Windows kube-proxy image
 * follows the cluster's Kubernetes version unless `windows-kube-proxy-image` overrides it (the
 * spec rule in src/spec/kube-proxy-skew-rule.ts keeps an override inside the skew policy).
 * Throws a ManifestError naming a missing or malformed entry.
 */
export function manifestVarsFromPlanVars(
  planVars: Record<string, unknown>,
  extra: ManifestVarsExtra,
): ManifestVars {
  const versions = (planVars['versions'] ?? {}) as Record<string, unknown>;
  const vars = {
    pod_cidr: planVars['pod_cidr'],
    service_cidr: planVars['service_cidr'],
    flannel_backend: planVars['flannel_backend'],
    flannel_vni: planVars['flannel_vni'],
    flannel_port: planVars['flannel_port'],
    api_server_host: extra.apiServerHost,
    api_server_port: extra.apiServerPort,
    windows_workloads: windowsWorkloads(extra.windowsVersions),
    linux_workload: linuxWorkload(extra.linuxWorkers),
    images: manifestImages(versions, extra.kubernetesVersion),
    // Only Windows nodes install these: a Linux-only cluster is not held to the Windows releases.
    windows_flannel_downloads:
      extra.windowsVersions.length > 0 ? windowsFlannelDownloads(versions) : ([] as WindowsFlannelDownload[]),
  };
  checkManifestVars('plan vars', vars);
  return vars;
}

/**
 * The images the manifests pull, from the versions entries `flannel`, `flannel-cni-plugin`,
 * `windows-hostprocess-image`, `agnhost` (a bare tag gets the upstream repository) and the cluster's Kubernetes
 * version (the Windows kube-proxy image, unless `windows-kube-proxy-image` overrides it). Throws a
 * ManifestError naming a missing entry.
 */
export function manifestImages(versions: Record<string, unknown>, kubernetesVersion: string): ManifestImages {
  const version = (name: string): string => {
    const value = versions[name];
    if (typeof value !== 'string' || value === '') {
      throw new ManifestError('plan vars', `versions entry "${name}" is ${describe(value)}`, {
        variable: `versions.${name}`,
      });
    }
    return value;
  };
  return {
    flannel: imageRef('docker.io/flannel/flannel', version('flannel')),
    flannel_cni_plugin: imageRef('docker.io/flannel/flannel-cni-plugin', version('flannel-cni-plugin')),
    windows_flannel: imageRef(WINDOWS_HOSTPROCESS_REPOSITORY, version('windows-hostprocess-image')),
    windows_kube_proxy: windowsKubeProxyImage(versions, kubernetesVersion),
    agnhost: imageRef('registry.k8s.io/e2e-test-images/agnhost', version('agnhost')),
  };
}
