import { ClusterState } from '../../fixtures/lab/cluster-state.js';
import type { ManifestVars } from '../../src/manifests/index.js';
import { testTempDir } from '../helpers/temp.js';

/** Manifest vars for a lab cluster (VXLAN VNI/port as given). */
export function labManifestVars(vni = 4096, port = 4789): ManifestVars {
  return {
    pod_cidr: '10.244.0.0/16',
    service_cidr: '10.96.0.0/12',
    flannel_backend: 'vxlan',
    flannel_vni: vni,
    flannel_port: port,
    api_server_host: '10.233.1.2',
    api_server_port: 6443,
    windows_servercore_tag: 'ltsc2022',
    images: {
      flannel: 'docker.io/flannel/flannel:v0.25.7',
      flannel_cni_plugin: 'docker.io/flannel/flannel-cni-plugin:v1.5.1-flannel2',
      windows_flannel: 'docker.io/sigwindowstools/flannel:v0.21.5-hostprocess',
      windows_kube_proxy: 'docker.io/sigwindowstools/kube-proxy:v1.31.2-calico-hostprocess',
    },
  };
}

/** A state with an initialised cluster whose first control plane is `cp1`. */
export async function initialisedState() {
  const state = ClusterState.open(await testTempDir('lab-state'));
  const init = await state.initCluster({
    controlPlaneEndpoint: '10.233.1.2:6443',
    podCIDR: '10.244.0.0/16',
    serviceCIDR: '10.96.0.0/12',
    kubernetesVersion: '1.31.2',
    firstNode: { name: 'cp1', address: '10.233.1.2' },
  });
  return { state, init };
}
