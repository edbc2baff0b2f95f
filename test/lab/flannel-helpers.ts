/** kubemix's Linux flannel manifest for lab tests, as it is and as it was before issue 19 item 7. */
import { ClusterState, type KubeObject } from '../../fixtures/lab/cluster-state.js';
import { renderManifestObjects } from '../../src/manifests/index.js';
import { testTempDir } from '../helpers/temp.js';
import { labManifestVars } from './helpers.js';

export type Container = Record<string, unknown> & { args?: string[]; command?: string[] };
export type PodSpec = { initContainers: Container[]; containers: Container[] };

export const podSpec = (objects: KubeObject[]) =>
  (objects.find((o) => o.kind === 'DaemonSet')!['spec'] as { template: { spec: PodSpec } }).template.spec;

/** kubemix's Linux flannel manifest, changed by `edit` on its pod spec. */
export function flannel(edit: (spec: PodSpec) => void = () => {}): KubeObject[] {
  const objects = structuredClone(renderManifestObjects('kube-flannel', labManifestVars())) as KubeObject[];
  edit(podSpec(objects));
  return objects;
}

/** The manifest as it was before this fix: install-cni copies with cp, flanneld has no health server or probes. */
export const beforeTheFix = () =>
  flannel((spec) => {
    Object.assign(spec.initContainers[1]!, {
      command: ['cp'],
      args: ['-f', '/etc/kube-flannel/cni-conf.json', '/etc/cni/net.d/10-flannel.conflist'],
    });
    const flanneld = spec.containers[0]!;
    flanneld.args = flanneld.args!.filter((a) => !a.startsWith('--healthz-port'));
    for (const key of ['ports', 'livenessProbe', 'readinessProbe']) delete flanneld[key];
  });

/** A cluster whose kubeadm got `podCIDR` ('' = none: no node gets a pod CIDR), with cp1 and the Linux worker w1. */
export async function flannelCluster(podCIDR = '10.244.0.0/16') {
  const state = ClusterState.open(await testTempDir('lab-state'));
  const init = await state.initCluster({
    controlPlaneEndpoint: '10.233.1.2:6443',
    podCIDR,
    serviceCIDR: '10.96.0.0/12',
    kubernetesVersion: '1.31.2',
    firstNode: { name: 'cp1', address: '10.233.1.2' },
  });
  await state.joinNode({
    name: 'w1',
    os: 'linux',
    address: '10.233.1.3',
    token: init.token,
    caCertHash: init.caCertHash,
  });
  return state;
}

/** `state` after applying `objects` in order. */
export async function applied(state: ClusterState, objects: KubeObject[]): Promise<ClusterState> {
  for (const o of objects) await state.applyObject(o);
  return state;
}
