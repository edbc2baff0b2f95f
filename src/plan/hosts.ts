import { providerFor } from '../provider/index.js';
import { groupConnection } from '../provider/node-defaults.js';
import type { NodeRequest, ProviderContext } from '../provider/types.js';
import { kubeletArgVars } from '../spec/kubelet-args.js';
import type { ClusterSpec } from '../spec/schema.js';
import type { InventoryHost } from '../types/inventory.js';
import { LOCALHOST } from '../types/localhost.js';

export { LOCALHOST };

const pad = (n: number) => String(n).padStart(2, '0');

/** Every Kubernetes node the spec asks for, controllers first (Kubeinit's order), with sizes and playbook vars. */
export function nodeRequests(spec: ClusterSpec): NodeRequest[] {
  const requests: NodeRequest[] = [];
  const cp = spec.nodes.controlPlane;
  const sized = (node: NodeRequest, size: { vcpus?: number; memoryGiB?: number; diskGiB?: number }) => {
    if (size.vcpus !== undefined) node.vcpus = size.vcpus;
    if (size.memoryGiB !== undefined) node.memoryGiB = size.memoryGiB;
    if (size.diskGiB !== undefined) node.diskGiB = size.diskGiB;
    return node;
  };
  for (let i = 1; i <= cp.count; i++) {
    const node: NodeRequest = {
      name: `controller-${pad(i)}`,
      group: 'control-plane',
      role: 'control-plane',
      os: 'linux',
      connection: cp.connection,
    };
    if (cp.credentials) {
      node.credentials = cp.credentials;
      node.credentialsPath = 'nodes.controlPlane.credentials';
    }
    if (cp.kubeletExtraArgs.length > 0) node.vars = kubeletArgVars(cp.kubeletExtraArgs);
    requests.push(sized(node, cp));
  }
  for (const [groupIndex, group] of spec.nodes.workers.entries()) {
    for (let i = 1; i <= group.count; i++) {
      const node: NodeRequest = {
        name: `${group.name}-${pad(i)}`,
        group: group.name,
        role: 'worker',
        os: group.os,
        connection: groupConnection(group),
      };
      if (group.credentials) {
        node.credentials = group.credentials;
        node.credentialsPath = `nodes.workers.${groupIndex}.credentials`;
      }
      if (group.os === 'windows') node.windowsVersion = group.windowsVersion ?? '2022';
      const vars: Record<string, unknown> = kubeletArgVars(group.kubeletExtraArgs);
      // prepare-windows runs Install-Containerd.ps1 without -skipHypervisorSupportCheck then.
      if (group.os === 'windows' && group.hyperV) vars['hyperv'] = true;
      if (Object.keys(vars).length > 0) node.vars = vars;
      requests.push(sized(node, group));
    }
  }
  return requests;
}

/**
 * The hosts a spec describes, as the plan sees them: the provider's hosts (hypervisors) and the
 * nodes: static machines as listed, libvirt guests with the addresses their DHCP reservations
 * give them, EC2 instances without an address until create-hosts records one. Pure: no I/O.
 */
export function plannedHosts(
  spec: ClusterSpec,
  context: ProviderContext = { versions: {}, clusterDir: '' },
): InventoryHost[] {
  const planned = providerFor(spec).plan(spec, nodeRequests(spec), context);
  return [...planned.providerHosts, ...planned.nodes];
}
