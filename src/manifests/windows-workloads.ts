/**
 * The one mapping from a Windows Server version to its build and to the image kubemix's Windows
 * workload (win-webserver) runs there. The RuntimeClasses, the win-webserver Deployments, the
 * offline image list (playbooks/artifacts.yaml) and prepare-windows' pre-pull all read it through
 * the plan vars `windows_workloads` / `windows_workload_by_node`.
 *
 * Process-isolated Windows containers need an image built for the host's Windows build
 * (Microsoft Learn, "Windows container version compatibility":
 * https://learn.microsoft.com/en-us/virtualization/windowscontainers/deploy-containers/version-compatibility),
 * so a cluster with Windows Server 2019, 2022 and 2025 nodes needs one workload per version, each kept
 * on its build by a RuntimeClass whose scheduling.nodeSelector names the kubelet's
 * `node.kubernetes.io/windows-build` label (Kubernetes docs, "Guide for Running Windows Containers
 * in Kubernetes" > "Ensuring OS-specific workloads land on the appropriate container host",
 * https://kubernetes.io/docs/concepts/windows/user-guide/, and "RuntimeClass" > "Scheduling",
 * https://kubernetes.io/docs/concepts/containers/runtime-class/#scheduling).
 */

import { WINDOWS_VERSIONS, type WindowsVersion } from '../types/windows.js';

export { WINDOWS_VERSIONS, type WindowsVersion };

/**
 * Build (`major.minor.build`, the value of the kubelet's `node.kubernetes.io/windows-build` label)
 * and the mcr.microsoft.com/windows/servercore tag built for it, per version: Microsoft Learn,
 * "Windows container version compatibility" (Windows Server 2025: build 26100, 2022: 20348, 2019:
 * 17763) and the servercore tags ltsc2025 / ltsc2022 / ltsc2019 of the "Windows container base
 * images" page; Kubernetes lists Windows Server 2025 among its supported Windows versions since
 * December 2025 (docs "Windows containers in Kubernetes" > "Windows OS version compatibility").
 */
const VERSION_FACTS: Record<WindowsVersion, { build: string; servercoreTag: string }> = {
  '2019': { build: '10.0.17763', servercoreTag: 'ltsc2019' },
  '2022': { build: '10.0.20348', servercoreTag: 'ltsc2022' },
  '2025': { build: '10.0.26100', servercoreTag: 'ltsc2025' },
};

/** The containerd handler for process-isolated Windows containers (containerd's runhcs shim). */
export const WINDOWS_PROCESS_HANDLER = 'runhcs-wcow-process';

/**
 * How long a win-webserver rollout may take once its image is on the node: the pod sandbox, its
 * HNS endpoint and the start of a Server Core container. kubemix's allowance, generous on
 * purpose: a rollout that finishes sooner does not wait for it.
 */
export const WORKLOAD_START_SECONDS = 300;

/**
 * What a node that still has to pull its workload image adds to the wait: Server Core images are
 * several GB (the largest Windows base image short of `windows/server`), and a kubelet pull both
 * downloads and unpacks them. kubemix's assumption, not a measurement: up to 6 GiB pulled and
 * unpacked at a 5 MiB/s floor, 1230 s, rounded up.
 */
export const WORKLOAD_PULL_SECONDS = 1260;

/** One Windows workload of a cluster: everything the templates and playbooks need for a version. */
export interface WindowsWorkload {
  /** Windows Server version: `2019`, `2022` or `2025`. */
  version: WindowsVersion;
  /** The Windows build its nodes report (`node.kubernetes.io/windows-build`). */
  build: string;
  /** Name of the RuntimeClass that keeps its pods on that build: `windows-<version>`. */
  runtime_class: string;
  /** The containerd runtime handler of that RuntimeClass. */
  handler: string;
  /** The win-webserver image for that build (mcr.microsoft.com/windows/servercore:<tag>). */
  image: string;
  /** The Deployment of win-webserver for that version: `win-webserver-<version>`. */
  name: string;
  /** Seconds a rollout may take with the image already on the node (see WORKLOAD_START_SECONDS). */
  start_seconds: number;
  /** Seconds added when a node must still pull the image (see WORKLOAD_PULL_SECONDS). */
  pull_seconds: number;
}

/** Is `value` a Windows Server version kubemix supports? */
export const isWindowsVersion = (value: unknown): value is WindowsVersion =>
  typeof value === 'string' && (WINDOWS_VERSIONS as readonly string[]).includes(value);

/** The workload of one Windows Server version. */
export function windowsWorkload(version: WindowsVersion): WindowsWorkload {
  const facts = VERSION_FACTS[version];
  return {
    version,
    build: facts.build,
    runtime_class: `windows-${version}`,
    handler: WINDOWS_PROCESS_HANDLER,
    image: `mcr.microsoft.com/windows/servercore:${facts.servercoreTag}`,
    name: `win-webserver-${version}`,
    start_seconds: WORKLOAD_START_SECONDS,
    pull_seconds: WORKLOAD_PULL_SECONDS,
  };
}

/** One workload per version present (duplicates dropped), oldest version first. */
export function windowsWorkloads(versions: Iterable<WindowsVersion>): WindowsWorkload[] {
  return WINDOWS_VERSIONS.filter((v) => [...versions].includes(v)).map(windowsWorkload);
}
