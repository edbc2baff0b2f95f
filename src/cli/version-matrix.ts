import { manifestImages } from '../manifests/vars.js';
import { windowsFlannelDownloads } from '../manifests/windows-flannel-downloads.js';
import { windowsWorkload } from '../manifests/windows-workloads.js';
import type { WindowsVersion } from '../types/windows.js';
import {
  kubernetesPackage,
  kubernetesSupport,
  parseKubernetesVersion,
  supportedRange,
} from '../versions/kubernetes-support.js';
import type { Versions } from '../versions/versions.js';
import { fitTable } from './render/fit-table.js';

/** One component of a cluster: what, which version or pin, where it goes, where it comes from. */
export interface MatrixRow {
  component: string;
  version: string;
  installedOn: string;
  source: string;
}

/** Inputs of {@link versionMatrix}: all data, no I/O. */
export interface MatrixInput {
  /** playbooks/versions.yaml with the spec's overrides. */
  versions: Versions;
  /** The cluster's Kubernetes version (`1.36.4`). */
  kubernetesVersion: string;
  /** The Windows Server versions whose workload image is listed (the spec's Windows groups). */
  windowsVersions: readonly WindowsVersion[];
  /** kubeadm's etcd/coredns/pause for the minor (playbooks/artifacts.yaml), when known. */
  kubeadmImages?: { etcd: string; coredns: string; pause: string };
}

const need = (versions: Versions, name: string): string => versions[name] ?? '(not pinned)';
const SIG_WINDOWS_TOOLS = 'raw.githubusercontent.com/kubernetes-sigs/sig-windows-tools';

/**
 * Every component kubemix installs for a cluster, resolved from the pins (playbooks/versions.yaml
 * plus the spec's `versions:`): `kubemix versions` prints it, `plan` starts with it, README.md
 * carries it for the defaults. Pure.
 */
export function versionMatrix(input: MatrixInput): MatrixRow[] {
  const { versions } = input;
  const k8s = input.kubernetesVersion.replace(/^v/, '');
  const minor = k8s.split('.').slice(0, 2).join('.');
  const images = manifestImages(versions, k8s);
  const parsed = parseKubernetesVersion(k8s);
  const repository = `pkgs.k8s.io/core:/${parsed ? kubernetesPackage(parsed).channel : 'stable'}:/v${minor}/deb`;
  const rows: MatrixRow[] = [
    {
      component: 'kubelet, kubeadm, kubectl',
      version: `${k8s}, at the repository's Debian revision`,
      installedOn: 'Linux nodes',
      source: `${repository} (apt-cache madison; offline: its index)`,
    },
    {
      component: 'kubernetes-cni, cri-tools',
      version: "the versions apt installs with them (the repository's newest)",
      installedOn: 'Linux nodes (with the packages above; carried in offline mode)',
      source: repository,
    },
    {
      component: 'kube-apiserver, -controller-manager, -scheduler, kube-proxy',
      version: `v${k8s}`,
      installedOn: 'control plane (kube-proxy: Linux nodes)',
      source: 'registry.k8s.io (kubeadm)',
    },
  ];
  if (input.kubeadmImages)
    rows.push({
      component: 'etcd, CoreDNS, pause',
      version: `${input.kubeadmImages.etcd}, ${input.kubeadmImages.coredns}, ${input.kubeadmImages.pause}`,
      installedOn: "control plane (pause: every node, containerd's sandbox image)",
      source: 'registry.k8s.io (kubeadm config images list)',
    });
  rows.push(
    {
      component: 'containerd (Linux)',
      version: `the distribution's if it meets ${need(versions, `containerd-minimum-${minor}`).split(' ').join('+, ')}+; else ${need(versions, 'containerd-linux')} with runc ${need(versions, 'runc-linux')}`,
      installedOn: 'Linux nodes',
      source: 'apt, or github.com/containerd/containerd releases (SHA-256 pinned)',
    },
    {
      component: 'flannel, flannel CNI plugin',
      version: `${images.flannel}, ${images.flannel_cni_plugin}`,
      installedOn: 'Linux nodes (DaemonSet)',
      source: 'flannel-io/flannel Documentation/kube-flannel.yml',
    },
    {
      component: 'Install-Containerd.ps1',
      version: need(versions, 'install-containerd-script'),
      installedOn: 'Windows nodes (runs once)',
      source: `${SIG_WINDOWS_TOOLS}/<commit>/hostprocess/Install-Containerd.ps1`,
    },
    {
      component: 'containerd, crictl (Windows)',
      version: `${need(versions, 'containerd')}, ${need(versions, 'crictl')}`,
      installedOn: 'Windows nodes',
      source: 'github.com/containerd/containerd, kubernetes-sigs/cri-tools releases (Install-Containerd.ps1)',
    },
    {
      component: 'PrepareNode.ps1',
      version: need(versions, 'prepare-node-script'),
      installedOn: 'Windows nodes (runs once)',
      source: `${SIG_WINDOWS_TOOLS}/<commit>/hostprocess/PrepareNode.ps1`,
    },
    {
      component: 'kubelet.exe, kubeadm.exe, nssm',
      version: `v${k8s}, nssm ${need(versions, 'nssm')}`,
      installedOn: 'Windows nodes',
      source: `dl.k8s.io/v${k8s}/bin/windows/amd64, the Kubernetes test mirror (PrepareNode.ps1)`,
    },
    {
      component: 'flannel (Windows, HostProcess DaemonSet image)',
      version: images.windows_flannel,
      installedOn: 'Windows nodes (DaemonSet)',
      source: "Microsoft's HostProcess base image (no program of its own)",
    },
    // Only clusters with Windows nodes install (and are held to) the Windows flannel releases.
    ...(input.windowsVersions.length > 0 ? windowsFlannelDownloads(versions) : []).map((d) => ({
      component: `${d.install.map((m) => m.to).join(', ')} (Windows flannel)`,
      version: `${d.file}, SHA-256 ${d.sha256 || (d.digest_url ? `taken at install (checked against the publisher's .${d.digest_algorithm})` : 'taken at install (first download: none published)')}`,
      installedOn: 'Windows nodes (the DaemonSet start script checks it)',
      source: d.url.replace(/^https:\/\//, '').replace(/\/[^/]*$/, ''),
    })),
    {
      component: 'kube-proxy (Windows, HostProcess)',
      version: images.windows_kube_proxy,
      installedOn: 'Windows nodes (DaemonSet)',
      source: 'sig-windows-tools sync-kube-proxy-images workflow',
    },
  );
  rows.push({
    component: 'agnhost netexec (verify, Linux)',
    version: images.agnhost,
    installedOn: 'Linux workers (the controllers without workers)',
    source: 'registry.k8s.io/e2e-test-images (Kubernetes e2e)',
  });
  for (const version of input.windowsVersions) {
    const workload = windowsWorkload(version);
    rows.push({
      component: `win-webserver (Windows Server ${version}, ${workload.build})`,
      version: workload.image,
      installedOn: `Windows Server ${version} nodes (verify)`,
      source: 'mcr.microsoft.com',
    });
  }
  return rows;
}

/** One line on the supported range, and on this version's place in it. */
export function supportLine(kubernetesVersion: string): string {
  const support = kubernetesSupport(kubernetesVersion);
  if (support.kind === 'supported')
    return support.warning ? `${supportedRange()}; ${kubernetesVersion} is a pre-release` : supportedRange();
  return `${supportedRange()}; ${kubernetesVersion} is not built`;
}

/** The matrix as a Markdown table (README.md carries the defaults' one). */
export function matrixMarkdown(rows: readonly MatrixRow[]): string {
  const cell = (text: string) => text.replace(/\|/g, '\\|');
  return [
    '| component | version or pin | installed on | comes from |',
    '| --- | --- | --- | --- |',
    ...rows.map(
      (r) => `| ${cell(r.component)} | ${cell(r.version)} | ${cell(r.installedOn)} | ${cell(r.source)} |`,
    ),
  ].join('\n');
}

/** The matrix as aligned text columns, every line at most `width` wide: cells wrap within their column, nothing is cut. */
export function matrixText(rows: readonly MatrixRow[], width: number): string {
  return fitTable(
    [
      { header: 'COMPONENT', overflow: 'wrap', minWidth: 12 },
      { header: 'VERSION', overflow: 'wrap', minWidth: 12 },
      { header: 'INSTALLED ON', overflow: 'wrap', minWidth: 12 },
      { header: 'FROM', overflow: 'wrap', minWidth: 12 },
    ],
    rows.map((r) => [r.component, r.version, r.installedOn, r.source]),
    { width },
  ).join('\n');
}
