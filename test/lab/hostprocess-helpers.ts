/**
 * A Windows node and a DaemonSet's HostProcess container on it, for the lab's reading of start
 * scripts (fixtures/lab/state/hostprocess-script.ts).
 */
import {
  type HostProcessPodSpec,
  runHostProcessContainer,
} from '../../fixtures/lab/state/hostprocess-script.js';
import type { KubeObject, NodeNic, NodeRecord, StateFile } from '../../fixtures/lab/state/types.js';

/** A NAT adapter first (the default route), the node's InternalIP on the second: a lab VM's layout. */
export const NAT_FIRST: NodeNic[] = [
  {
    alias: 'Ethernet',
    ifIndex: 4,
    address: '10.0.2.15',
    prefixLength: 24,
    gateway: '10.0.2.2',
    metric: 0,
    natOnly: true,
  },
  { alias: 'Ethernet 2', ifIndex: 6, address: '10.233.1.200', prefixLength: 24 },
];

export function node(runtime = 'containerd://1.7.22'): NodeRecord {
  return {
    name: 'win1',
    os: 'windows',
    controlPlane: false,
    address: '10.233.1.200',
    labels: { 'kubernetes.io/os': 'windows' },
    taints: [],
    index: 1,
    kubeletRunning: true,
    kubeletVersion: 'v1.31.2',
    containerRuntimeVersion: runtime,
    osImage: 'Windows Server 2022 Datacenter',
    kernelVersion: '10.0.20348.2762',
    nics: NAT_FIRST,
    joinedAt: '',
    uid: 'u',
  };
}

export function stateOf(objects: KubeObject[]): StateFile {
  return {
    version: 1,
    nodes: [],
    objects: Object.fromEntries(
      objects.map((o) => [`${o.kind}/${o.metadata.namespace}/${o.metadata.name}`, o]),
    ),
    nextNodeIndex: 0,
    resourceVersion: 1,
  } as StateFile;
}

/** Runs a DaemonSet's first container on `n` with the objects of `manifests`. */
export function runDaemonSet(
  objects: KubeObject[],
  name: string,
  n = node(),
  hns: { name: string; subnet: string }[] = [],
) {
  const ds = objects.find((o) => o.kind === 'DaemonSet' && o.metadata.name === name)!;
  const spec = (ds['spec'] as { template: { spec: HostProcessPodSpec } }).template.spec;
  return runHostProcessContainer(
    {
      state: stateOf(objects),
      node: n,
      podName: `${name}-x`,
      namespace: ds.metadata.namespace!,
      spec,
      nics: n.nics!,
      hnsNetworks: hns,
    },
    spec.containers![0]!,
  );
}
