import { execFile } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ClusterState } from '../../fixtures/lab/cluster-state.js';
import { writeStandins } from '../../fixtures/lab/install-standins.js';
import { useLabInternet } from '../../fixtures/lab/state/lab-internet.js';
import {
  publishWindowsFlannelRelease,
  windowsFlannelPins,
} from '../../fixtures/lab/windows-flannel-release.js';
import {
  linuxWorkload,
  type ManifestVars,
  manifestImages,
  windowsFlannelDownloads,
  windowsWorkloads,
} from '../../src/manifests/index.js';
import { loadVersions } from '../../src/versions/versions.js';
import { testTempDir, testTempDirSync } from '../helpers/temp.js';

// Made once per test file: keyed by the file's marker (test/setup/per-file.ts), because with
// `isolate: false` this module outlives the file whose temp directory held the internet.
let internet: { file: string | undefined; dir: string } | undefined;

/**
 * Gives the lab's in-process readers (HostProcess start scripts' Invoke-WebRequest) the lab's
 * internet with the lab-made Windows flannel release (made once per test file).
 */
export function useLabReleaseInternet(): void {
  // Also after a test took the internet away (useLabInternet(undefined)).
  useLabInternet(releaseInternet());
}

/** The lab's internet directory with the release, made (and first given to the lab) once per test file. */
function releaseInternet(): string {
  const file = process.env['KMX_TEST_FILE'];
  if (!internet || internet.file !== file) {
    internet = { file, dir: testTempDirSync('lab-internet') };
    publishWindowsFlannelRelease(internet.dir, loadVersions());
    useLabInternet(internet.dir);
  }
  return internet.dir;
}

/**
 * Manifest vars for a lab cluster (VXLAN VNI/port as given) with `linuxWorkers` Linux workers.
 * Windows flannel's downloads pin the digests of the lab's release files, which the lab's
 * internet serves from here on.
 */
export function labManifestVars(vni = 4096, port = 4789, linuxWorkers = 1): ManifestVars {
  releaseInternet();
  const versions = { ...loadVersions(), ...windowsFlannelPins(loadVersions()) };
  const images = manifestImages(versions, '1.31.2');
  return {
    pod_cidr: '10.244.0.0/16',
    service_cidr: '10.96.0.0/12',
    flannel_backend: 'vxlan',
    flannel_vni: vni,
    flannel_port: port,
    api_server_host: '10.233.1.2',
    api_server_port: 6443,
    windows_workloads: windowsWorkloads(['2022']),
    linux_workload: linuxWorkload(linuxWorkers),
    images: {
      // The pinned flannel (versions.yaml): kubemix's manifest runs what that release's images hold
      // (install-conf, /readyz), and the lab checks it (fixtures/lab/state/flannel-image.ts).
      flannel: images.flannel,
      flannel_cni_plugin: images.flannel_cni_plugin,
      windows_flannel: images.windows_flannel,
      windows_kube_proxy: 'docker.io/sigwindowstools/kube-proxy:v1.31.2-calico-hostprocess',
      agnhost: images.agnhost,
    },
    windows_flannel_downloads: windowsFlannelDownloads(versions),
  };
}

/** A state with an initialised cluster whose first control plane is `cp1`. */
export async function initialisedState(kubernetesVersion = '1.31.2') {
  const state = ClusterState.open(await testTempDir('lab-state'));
  // Child processes (the stand-ins) read the lab's internet from the state, as in a real lab.
  useLabReleaseInternet();
  await state.setInternetDir(releaseInternet());
  const init = await state.initCluster({
    controlPlaneEndpoint: '10.233.1.2:6443',
    podCIDR: '10.244.0.0/16',
    serviceCIDR: '10.96.0.0/12',
    kubernetesVersion,
    firstNode: { name: 'cp1', address: '10.233.1.2' },
  });
  return { state, init };
}

export interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** A fake host: its own root and stand-in wrappers, sharing the cluster state dir. */
export interface FakeHost {
  root: string;
  run(program: string, args: string[], env?: Record<string, string>): Promise<Run>;
}

export async function fakeHost(
  stateDir: string,
  name: string,
  address: string,
  prepared = true,
): Promise<FakeHost> {
  const root = await testTempDir(`host-${name}`);
  const bin = join(root, 'opt/kubemix-lab/bin');
  await writeStandins({ dir: bin, stateDir, root, nodeName: name, address });
  if (prepared) {
    await mkdir(join(root, 'var/lib/kubemix-lab'), { recursive: true });
    // What prepare-linux leaves for containerd 1.6: its CRI's sandbox image is kubeadm 1.31.2's pause.
    await mkdir(join(root, 'etc/containerd'), { recursive: true });
    await writeFile(
      join(root, 'etc/containerd/config.toml'),
      'version = 2\n\n[plugins."io.containerd.grpc.v1.cri"]\n  sandbox_image = "registry.k8s.io/pause:3.10"\n',
    );
    const v = '1.31.2-1.1';
    await writeFile(
      join(root, 'var/lib/kubemix-lab/host.json'),
      JSON.stringify({
        packages: {
          kubeadm: v,
          kubelet: v,
          kubectl: v,
          containerd: '1.6.20~ds1-1+deb12u3',
          'cri-tools': '1.31.1-1.1',
        },
        held: [],
        modules: ['overlay', 'br_netfilter'],
        sysctl: { 'net.ipv4.ip_forward': '1', 'net.bridge.bridge-nf-call-iptables': '1' },
        swapOn: false,
        services: { containerd: { enabled: true, active: true }, kubelet: { enabled: true, active: false } },
        aptSources: [],
      }),
    );
  }
  return {
    root,
    run: (program, args, env = {}) =>
      new Promise((resolve) => {
        const child = execFile(
          join(bin, program),
          args,
          { env: { ...process.env, ...env } },
          (error, stdout, stderr) =>
            resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
        );
        // Nothing to read: a tool that asks (kubeadm reset's confirmation) sees the end of its input.
        child.stdin?.end();
      }),
  };
}
