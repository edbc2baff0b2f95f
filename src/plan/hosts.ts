import type { ClusterSpec, WorkerGroup } from '../spec/schema.js';
import type { ConnectionKind, HostCredentials, InventoryHost } from '../types/inventory.js';

/** The machine running kubemix: provider work and preflight checks run here. */
export const LOCALHOST: InventoryHost = Object.freeze({
  name: 'localhost',
  address: '127.0.0.1',
  os: 'linux',
  connection: 'local',
  role: 'controller',
  group: 'localhost',
}) as InventoryHost;

const WINRM_HTTP_PORT = 5985;
const SSH_PORT = 22;

const pad = (n: number) => String(n).padStart(2, '0');

function defaultPort(connection: ConnectionKind): number | undefined {
  if (connection === 'winrm') return WINRM_HTTP_PORT;
  if (connection === 'ssh') return SSH_PORT;
  return undefined;
}

function groupConnection(group: WorkerGroup): ConnectionKind {
  return group.connection ?? (group.os === 'windows' ? 'winrm' : 'ssh');
}

/** Address `offset` inside an IPv4 CIDR (offset 1 = first usable address). */
function addressInCidr(cidr: string, offset: number): string {
  const [ip] = cidr.split('/') as [string];
  const value = ip.split('.').reduce((acc, octet) => acc * 256 + Number(octet), 0) + offset;
  return [24, 16, 8, 0].map((shift) => Math.floor(value / 2 ** shift) % 256).join('.');
}

interface NodeSlot {
  name: string;
  group: string;
  role: 'control-plane' | 'worker';
  os: 'linux' | 'windows';
  connection: ConnectionKind;
  credentials?: HostCredentials;
  windowsVersion?: '2019' | '2022';
  /** Playbook variables of the node's group ({@link nodeGroupVars}). */
  vars?: Record<string, unknown>;
}

/**
 * The playbook variables a node gets from its group, whatever the provider: `kubelet_extra_args`
 * (join playbooks) and, for Windows groups with `hyperV`, `hyperv: true` (prepare-windows runs
 * Install-Containerd.ps1 without -skipHypervisorSupportCheck).
 */
function nodeGroupVars(spec: ClusterSpec, groupName: string): Record<string, unknown> | undefined {
  const group = spec.nodes.workers.find((g) => g.name === groupName);
  const kubeletArgs =
    groupName === 'control-plane' ? spec.nodes.controlPlane.kubeletExtraArgs : group?.kubeletExtraArgs;
  const vars: Record<string, unknown> = {};
  if (kubeletArgs && kubeletArgs.length > 0) vars['kubelet_extra_args'] = kubeletArgs;
  if (group?.os === 'windows' && group.hyperV) vars['hyperv'] = true;
  return Object.keys(vars).length > 0 ? vars : undefined;
}

/** Every Kubernetes node the spec asks for, controllers first (Kubeinit's order). */
function nodeSlots(spec: ClusterSpec): NodeSlot[] {
  const slots: NodeSlot[] = [];
  const cp = spec.nodes.controlPlane;
  for (let i = 1; i <= cp.count; i++) {
    const slot: NodeSlot = {
      name: `controller-${pad(i)}`,
      group: 'control-plane',
      role: 'control-plane',
      os: 'linux',
      connection: cp.connection,
    };
    if (cp.credentials) slot.credentials = cp.credentials;
    const vars = nodeGroupVars(spec, 'control-plane');
    if (vars) slot.vars = vars;
    slots.push(slot);
  }
  for (const group of spec.nodes.workers) {
    for (let i = 1; i <= group.count; i++) {
      const slot: NodeSlot = {
        name: `${group.name}-${pad(i)}`,
        group: group.name,
        role: 'worker',
        os: group.os,
        connection: groupConnection(group),
      };
      if (group.credentials) slot.credentials = group.credentials;
      if (group.os === 'windows') slot.windowsVersion = group.windowsVersion ?? '2022';
      const vars = nodeGroupVars(spec, group.name);
      if (vars) slot.vars = vars;
      slots.push(slot);
    }
  }
  return slots;
}

function toHost(
  slot: NodeSlot,
  address: string,
  hostKeyPolicy: 'strict' | 'accept-new',
  vars?: Record<string, unknown>,
): InventoryHost {
  const host: InventoryHost = {
    name: slot.name,
    address,
    os: slot.os,
    connection: slot.connection,
    role: slot.role,
    group: slot.group,
    hostKeyPolicy,
  };
  const port = defaultPort(slot.connection);
  if (port !== undefined) host.port = port;
  if (slot.credentials) host.credentials = slot.credentials;
  if (slot.windowsVersion) host.windowsVersion = slot.windowsVersion;
  if (slot.vars || vars) host.vars = { ...slot.vars, ...vars };
  return host;
}

/** Static provider: the user's machines, matched to node groups. User-listed hosts are strict about host keys. */
function staticHosts(spec: ClusterSpec & { provider: { type: 'static' } }): InventoryHost[] {
  const groups = new Map(spec.nodes.workers.map((g) => [g.name, g]));
  return spec.provider.hosts.map((listed) => {
    const group = groups.get(listed.group);
    const isControlPlane = listed.group === 'control-plane';
    const os = group?.os ?? 'linux';
    const connection =
      listed.connection ??
      (isControlPlane ? spec.nodes.controlPlane.connection : group ? groupConnection(group) : 'ssh');
    const credentials =
      listed.credentials ?? (isControlPlane ? spec.nodes.controlPlane.credentials : group?.credentials);
    const host: InventoryHost = {
      name: listed.name,
      address: listed.address,
      os,
      connection,
      role: isControlPlane ? 'control-plane' : 'worker',
      group: listed.group,
      hostKeyPolicy: 'strict',
    };
    const port = listed.port ?? defaultPort(connection);
    if (port !== undefined) host.port = port;
    if (credentials) host.credentials = credentials;
    if (spec.provider.knownHosts && connection === 'ssh')
      host.vars = { kubemix_known_hosts: [spec.provider.knownHosts] };
    const groupVars = nodeGroupVars(spec, isControlPlane ? 'control-plane' : listed.group);
    if (groupVars) host.vars = { ...host.vars, ...groupVars };
    if (os === 'windows') host.windowsVersion = group?.windowsVersion ?? '2022';
    return host;
  });
}

/**
 * The hosts a spec describes, as the plan sees them: for static providers the listed machines,
 * for libvirt the guests (with the addresses kubemix will reserve, Kubeinit-style: controllers
 * first) and the hypervisors, for EC2 the instances (addresses known only once created).
 * Pure: no I/O.
 */
export function plannedHosts(spec: ClusterSpec): InventoryHost[] {
  const provider = spec.provider;
  if (provider.type === 'static') return staticHosts({ ...spec, provider });
  if (provider.type === 'libvirt') {
    const hypervisors: InventoryHost[] = (
      provider.hypervisors.length > 0
        ? provider.hypervisors
        : [{ name: 'hypervisor-01', address: 'localhost' }]
    ).map((hv) => {
      const local = hv.address === 'localhost' || hv.address === '127.0.0.1';
      const host: InventoryHost = {
        name: hv.name,
        address: hv.address,
        os: 'linux',
        connection: local ? 'local' : 'ssh',
        role: 'hypervisor',
        group: 'hypervisors',
        hostKeyPolicy: 'strict',
      };
      if (!local) host.port = ('port' in hv && hv.port) || SSH_PORT;
      if ('credentials' in hv && hv.credentials) host.credentials = hv.credentials;
      return host;
    });
    // Guests are spread round-robin over hypervisors; addresses start at .11 (gateway .1, room for services).
    return [
      ...hypervisors,
      ...nodeSlots(spec).map((slot, index) =>
        toHost(slot, addressInCidr(provider.network.cidr, 11 + index), 'accept-new', {
          hypervisor: hypervisors[index % hypervisors.length]!.name,
        }),
      ),
    ];
  }
  // EC2: addresses are assigned by AWS when instances start; the state file records them.
  return nodeSlots(spec).map((slot) => toHost(slot, '', 'accept-new', { addressPending: true }));
}
