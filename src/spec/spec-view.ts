/**
 * A defensive, read-only view of a spec as written. Cross-field rules read it, so they can run
 * even when the schema found other problems (every problem is reported at once) and can tell
 * a value the user wrote from a default.
 */

/** A spec path, as segments. */
export type SpecPath = (string | number)[];

/** A problem found by a cross-field rule, before it gets a file and line:column. */
export interface RuleIssue {
  path: SpecPath;
  message: string;
}

/** A worker group as written. Fields are undefined when missing or of the wrong type. */
export interface GroupView {
  index: number;
  name?: string;
  os?: string;
  count?: number;
  connection?: string;
  windowsVersion?: unknown;
  taint?: unknown;
  hyperV?: unknown;
  /** Sizing keys written on the group (instanceType, vcpus, memoryGiB, diskGiB). */
  sizing: string[];
  /** The group gives credentials (any). */
  credentials: boolean;
}

/** A static host or a hypervisor as written. */
export interface HostView {
  index: number;
  name?: string;
  group?: string;
  connection?: string;
  address?: string;
  port?: number;
}

/** What the cross-field rules look at. */
export interface SpecView {
  /** `kubernetes.version` as written. */
  kubernetesVersion?: string;
  /** `versions:` overrides as written (string values only). */
  versions: Record<string, string>;
  network: { podCIDR?: string; serviceCIDR?: string; vni?: number; port?: number };
  controlPlane: {
    count?: number;
    endpoint?: string;
    connection?: string;
    written: boolean;
    sizing: string[];
    /** The control plane gives credentials (any). */
    credentials: boolean;
  };
  workers: GroupView[];
  provider: {
    type?: string;
    hosts: HostView[];
    hypervisors: HostView[];
    networkCIDR?: string;
    /** EC2: the VPC CIDR, VPC and subnet as written. */
    vpcCidr?: string;
    vpcId?: string;
    subnetId?: string;
    /** EC2: `connectVia` as written. */
    connectVia?: string;
    /** libvirt: `images.windows` is given. */
    windowsImage: boolean;
    /** libvirt: `tunnel.port` as written. */
    tunnelPort?: number;
    /** libvirt: `windows.goldenImage` as written. */
    goldenImage?: unknown;
  };
}

type Loose = Record<string, unknown>;

function record(value: unknown): Loose {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Loose) : {};
}
function list(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}
function text(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}
function number(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

function hostView(value: unknown, index: number): HostView {
  const host = record(value);
  return {
    index,
    name: text(host.name),
    group: text(host.group),
    connection: text(host.connection),
    address: text(host.address),
    port: number(host.port),
  };
}

const SIZING_KEYS = ['instanceType', 'vcpus', 'memoryGiB', 'diskGiB'];
const sizingKeys = (group: Loose) => SIZING_KEYS.filter((key) => group[key] !== undefined);

/** Reads the parts of a spec the cross-field rules need, tolerating any shape. */
export function specView(input: unknown): SpecView {
  const spec = record(input);
  const network = record(spec.network);
  const flannel = record(network.flannel);
  const nodes = record(spec.nodes);
  const controlPlane = record(nodes.controlPlane);
  const provider = record(spec.provider);
  const versions = Object.fromEntries(
    Object.entries(record(spec.versions)).filter(
      (entry): entry is [string, string] => typeof entry[1] === 'string',
    ),
  );
  return {
    kubernetesVersion: text(record(spec.kubernetes).version),
    versions,
    network: {
      podCIDR: text(network.podCIDR),
      serviceCIDR: text(network.serviceCIDR),
      vni: number(flannel.vni),
      port: number(flannel.port),
    },
    controlPlane: {
      count: number(controlPlane.count),
      endpoint: text(controlPlane.endpoint),
      connection: text(controlPlane.connection),
      written: nodes.controlPlane !== undefined,
      sizing: sizingKeys(controlPlane),
      credentials: controlPlane.credentials !== undefined,
    },
    workers: list(nodes.workers).map((value, index) => {
      const group = record(value);
      return {
        index,
        name: text(group.name),
        os: text(group.os),
        count: number(group.count),
        connection: text(group.connection),
        windowsVersion: group.windowsVersion,
        taint: group.taint,
        hyperV: group.hyperV,
        sizing: sizingKeys(group),
        credentials: group.credentials !== undefined,
      };
    }),
    provider: {
      type: text(provider.type),
      hosts: list(provider.hosts).map(hostView),
      hypervisors: list(provider.hypervisors).map(hostView),
      networkCIDR: text(record(provider.network).cidr),
      vpcCidr: text(provider.vpcCidr),
      vpcId: text(provider.vpcId),
      subnetId: text(provider.subnetId),
      connectVia: text(provider.connectVia),
      windowsImage: record(provider.images).windows !== undefined,
      tunnelPort: number(record(provider.tunnel).port),
      goldenImage: record(provider.windows).goldenImage,
    },
  };
}
