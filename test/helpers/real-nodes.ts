import { stringify } from 'yaml';
import type { LocalControlPlane } from '../../fixtures/release/local-control-plane.js';

/** A Node of a test's cluster on the real local control plane (no kubelet behind it). */
export interface NodeSpec {
  name: string;
  os: 'linux' | 'windows';
  /** A Windows node's build (the `node.kubernetes.io/windows-build` label its kubelet sets). */
  build?: string;
  controlPlane?: boolean;
  /** Default true. A node without a pod network yet is not Ready (the kubelet's own reason). */
  ready?: boolean;
}

/**
 * Registers a Node as its kubelet would (labels, capacity, the Ready condition) and leaves it as
 * the node lifecycle controller would (which does not run on the local control plane): the
 * not-ready taint admission puts on a new Node replaced by the taints a built cluster has
 * (kubeadm's control-plane taint, kubemix's os=windows taint).
 */
export async function registerNode(cp: LocalControlPlane, node: NodeSpec): Promise<void> {
  const ready = node.ready ?? true;
  const labels: Record<string, string> = {
    'kubernetes.io/os': node.os,
    'kubernetes.io/arch': 'amd64',
    'kubernetes.io/hostname': node.name,
    ...(node.build ? { 'node.kubernetes.io/windows-build': node.build } : {}),
    ...(node.controlPlane ? { 'node-role.kubernetes.io/control-plane': '' } : {}),
  };
  const taints = [
    ...(node.controlPlane ? [{ key: 'node-role.kubernetes.io/control-plane', effect: 'NoSchedule' }] : []),
    ...(node.os === 'windows' ? [{ key: 'os', value: 'windows', effect: 'NoSchedule' }] : []),
    ...(ready ? [] : [{ key: 'node.kubernetes.io/not-ready', effect: 'NoSchedule' }]),
  ];
  await createNode(cp, { name: node.name, labels, taints, ready });
}

/** A Node's scheduling facts: what the scheduler and the DaemonSet controller read. */
export interface NodeFacts {
  name: string;
  labels: Record<string, string>;
  taints: Array<{ key: string; value?: string; effect: string }>;
  ready: boolean;
}

/** Creates the Node with these labels, taints and Ready condition (and room for 110 pods). */
export async function createNode(cp: LocalControlPlane, node: NodeFacts): Promise<void> {
  await cp.kubectlOk(
    ['create', '-f', '-'],
    stringify({ apiVersion: 'v1', kind: 'Node', metadata: { name: node.name, labels: node.labels } }),
  );
  await cp.kubectlOk([
    'patch',
    'node',
    node.name,
    '--type=merge',
    '-p',
    JSON.stringify({ spec: { taints: node.taints } }),
  ]);
  const resources = { cpu: '4', memory: '8Gi', pods: '110' };
  const condition = node.ready
    ? { type: 'Ready', status: 'True', reason: 'KubeletReady', message: 'kubelet is posting ready status' }
    : {
        type: 'Ready',
        status: 'False',
        reason: 'KubeletNotReady',
        message: 'container runtime network not ready: NetworkReady=false reason:NetworkPluginNotReady',
      };
  const status = { status: { capacity: resources, allocatable: resources, conditions: [condition] } };
  await cp.kubectlOk([
    'patch',
    'node',
    node.name,
    '--subresource=status',
    '--type=merge',
    '-p',
    JSON.stringify(status),
  ]);
}
