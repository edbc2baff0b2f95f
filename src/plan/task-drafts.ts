import type { ProviderPlan, ProviderTask } from '../provider/types.js';
import type { ClusterSpec } from '../spec/schema.js';
import type { InventoryHost } from '../types/inventory.js';
import type { ClusterTaskName, PlanStep } from '../types/plan.js';
import { waitForHostSteps } from './preflight-steps.js';

/** A task of the cluster plan before its steps are looked up in the playbooks. */
export interface TaskDraft {
  name: ClusterTaskName;
  description: string;
  needs: ClusterTaskName[];
  hosts: InventoryHost[];
  /** Steps built in code; undefined: the playbooks' steps. */
  steps?: PlanStep[];
  /** A provider task: its steps are final (undefined: not implemented yet). */
  provider?: boolean;
}

/** The provider's nodes sorted by the parts they play; every later stage picks its hosts here. */
export interface NodeRoles {
  nodes: InventoryHost[];
  controllers: InventoryHost[];
  /** The controller that runs the cluster-wide tasks (flannel, Windows networking, verify). */
  firstController: InventoryHost[];
  linuxNodes: InventoryHost[];
  linuxWorkers: InventoryHost[];
  windowsWorkers: InventoryHost[];
}

/** Sorts the nodes once, so that each stage below reads by role instead of filtering again. */
export function nodeRoles(nodes: InventoryHost[]): NodeRoles {
  const controllers = nodes.filter((h) => h.role === 'control-plane');
  const linuxNodes = nodes.filter((h) => h.os === 'linux');
  return {
    nodes,
    controllers,
    firstController: controllers.slice(0, 1),
    linuxNodes,
    linuxWorkers: linuxNodes.filter((h) => h.role === 'worker'),
    windowsWorkers: nodes.filter((h) => h.os === 'windows'),
  };
}

const providerDraft = (name: ClusterTaskName, needs: ClusterTaskName[], task: ProviderTask): TaskDraft => ({
  name,
  description: task.description,
  needs,
  hosts: task.hosts,
  ...(task.steps ? { steps: task.steps } : {}),
  provider: true,
});

/**
 * The provider's stage, up to every node answering: prepare, then (for providers that create
 * machines) network, hosts and golden image, then wait-for-hosts. It is separate because only
 * this stage differs between providers; everything after it is the same kubeadm procedure.
 */
export function providerDrafts(providerPlan: ProviderPlan, nodes: InventoryHost[]): TaskDraft[] {
  const drafts: TaskDraft[] = [providerDraft('prepare-provider', [], providerPlan.prepare)];
  const { createNetwork, createHosts, goldenImage } = providerPlan;
  if (createNetwork && createHosts) {
    drafts.push(
      providerDraft('create-network', ['prepare-provider'], createNetwork),
      providerDraft('create-hosts', ['create-network'], createHosts),
    );
    if (goldenImage) drafts.push(providerDraft('golden-image', ['create-hosts'], goldenImage));
  }
  drafts.push({
    name: 'wait-for-hosts',
    description: 'Wait until every node answers over its connection',
    needs: [createHosts && goldenImage ? 'golden-image' : createHosts ? 'create-hosts' : 'prepare-provider'],
    hosts: nodes,
    steps: [
      ...(providerPlan.beforeConnectSteps ?? []),
      ...waitForHostSteps(providerPlan.waitTimeoutSec),
      ...providerPlan.waitSteps,
    ],
  });
  return drafts;
}

/**
 * The Linux side of the kubeadm procedure: prepare, init, pod network, join. Every cluster has
 * it (the control plane is Linux); the Linux join is left out when there are no Linux workers.
 */
export function linuxDrafts(spec: ClusterSpec, roles: NodeRoles): TaskDraft[] {
  const { flannel } = spec.network;
  const drafts: TaskDraft[] = [
    {
      name: 'prepare-linux',
      description: 'Kernel modules, sysctl, swap off, containerd, kubelet/kubeadm/kubectl',
      needs: ['wait-for-hosts'],
      hosts: roles.linuxNodes,
    },
    {
      name: 'init-control-plane',
      description: `kubeadm init (pod CIDR ${spec.network.podCIDR})${roles.controllers.length > 1 ? ', then join the other controllers' : ''}; fetch admin.conf`,
      needs: ['prepare-linux'],
      hosts: roles.controllers,
    },
    {
      name: 'install-flannel',
      description: `Flannel ${flannel.backend} VNI ${flannel.vni} port ${flannel.port}`,
      needs: ['init-control-plane'],
      hosts: roles.firstController,
    },
  ];
  if (roles.linuxWorkers.length > 0) {
    drafts.push({
      name: 'join-linux-workers',
      description: 'kubeadm join the Linux workers',
      // It ends by waiting for each node to be Ready, which needs the pod network's CNI config:
      // without install-flannel here, --stop-after join-linux-workers would wait forever.
      needs: ['install-flannel', 'prepare-linux'],
      hosts: roles.linuxWorkers,
    });
  }
  return drafts;
}

/**
 * The Windows side, only when there are Windows workers. Windows preparation (Containers
 * feature, reboot, containerd, PrepareNode) needs only the hosts to be up, so it overlaps with
 * control-plane init; Windows joins wait for both.
 */
export function windowsDrafts(roles: NodeRoles): TaskDraft[] {
  if (roles.windowsWorkers.length === 0) return [];
  return [
    {
      name: 'prepare-windows',
      description: 'Containers feature (+ reboot), containerd, PrepareNode.ps1',
      needs: ['wait-for-hosts'],
      hosts: roles.windowsWorkers,
    },
    {
      name: 'join-windows-workers',
      description: 'kubeadm join the Windows workers',
      needs: ['prepare-windows', 'init-control-plane'],
      hosts: roles.windowsWorkers,
    },
    {
      name: 'install-windows-networking',
      description: 'Windows flannel (HostProcess, VXLAN) and kube-proxy DaemonSets',
      needs: ['join-windows-workers', 'install-flannel'],
      hosts: roles.firstController,
    },
  ];
}

/**
 * The last task, verify. It needs every task nothing else needs (the graph's leaves), so it is
 * built after all the others and runs only once the whole cluster is up.
 */
export function verifyDraft(drafts: TaskDraft[], roles: NodeRoles): TaskDraft {
  const leaves = drafts
    .map((d) => d.name)
    .filter((name) => !drafts.some((other) => other.needs.includes(name)));
  return {
    name: 'verify',
    description: `Deploy ${roles.windowsWorkers.length > 0 ? 'agnhost netexec (Linux) and win-webserver (Windows)' : 'agnhost netexec'} and check node/pod/service/DNS/NodePort/outbound`,
    needs: leaves,
    hosts: roles.firstController,
  };
}
