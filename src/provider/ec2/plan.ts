import { addressInCidr } from '../../spec/cidr.js';
import type { ClusterSpec, Ec2Provider } from '../../spec/schema.js';
import type { ConnectionKind, HostOs } from '../../types/inventory.js';
import type { WindowsVersion } from '../../types/windows.js';

/** Instance types of groups that name none: kubeadm's minimum is 2 vCPUs; Windows wants 8 GiB. */
export const DEFAULT_INSTANCE_TYPE = { linux: 't3.large', windows: 'm5.large' } as const;

/**
 * Public SSM parameters holding the current AMI ids (AWS and Debian publish them; see
 * shared/RESEARCH.md "EC2 for self-managed kubeadm clusters"). Debian:
 * https://wiki.debian.org/Cloud/AmazonEC2Image ("SSM parameters"); Windows:
 * https://docs.aws.amazon.com/systems-manager/latest/userguide/parameter-store-public-parameters-ami.html
 */
export const DEFAULT_IMAGE_PARAMETER = {
  linux: '/aws/service/debian/release/12/latest/amd64',
  windows: (version: WindowsVersion) =>
    `/aws/service/ami-windows-latest/Windows_Server-${version}-English-Full-Base`,
} as const;

/**
 * DescribeImages fallbacks when no parameter answers: Debian's AWS account (136693071363, the
 * Debian cloud team's, wiki.debian.org/Cloud/AmazonEC2Image) and Amazon's Windows images.
 */
export const DEFAULT_IMAGE_SEARCH = {
  linux: { owner: '136693071363', namePattern: 'debian-12-amd64-*' },
  windows: (version: WindowsVersion) => ({
    owner: 'amazon',
    namePattern: `Windows_Server-${version}-English-Full-Base-*`,
  }),
} as const;

/** Where a group's AMI comes from. */
export type ImageSource =
  | { kind: 'id'; imageId: string }
  | { kind: 'parameter'; parameter: string }
  | { kind: 'default'; parameter: string; owner: string; namePattern: string };

/** One RunInstances call: a node group and the nodes it makes. */
export interface InstanceGroupPlan {
  group: string;
  /** The group in the spec (`nodes.controlPlane`, `nodes.workers.1`), for messages. */
  specPath: string;
  os: HostOs;
  connection: ConnectionKind;
  windowsVersion?: WindowsVersion;
  instanceType: string;
  image: ImageSource;
  /** Node names, in order; instance i gets name i (by its AMI launch index). */
  nodes: string[];
  /** Root volume size, when the spec gives diskGiB. */
  rootVolumeGiB?: number;
}

/** One ingress rule of the cluster security group. */
export interface IngressRule {
  protocol: 'tcp' | 'udp' | '-1';
  fromPort: number;
  toPort: number;
  /** A CIDR, or `self` (members of the cluster security group). */
  source: string;
  description: string;
}

/** The network: one kubemix creates, or one the user owns (never changed). */
export type NetworkPlan =
  | { kind: 'create'; vpcCidr: string; subnetCidr: string }
  | { kind: 'existing'; subnetId: string; vpcId?: string };

/** Everything create-network and create-hosts will make for a spec. Pure data. */
export interface Ec2Plan {
  cluster: string;
  /** The spec's region; absent: the SDK's (recorded at the first `up`, see identity.ts). */
  region?: string;
  network: NetworkPlan;
  securityGroupName: string;
  rules: IngressRule[];
  keyPairName: string;
  groups: InstanceGroupPlan[];
  connectVia: 'public' | 'private';
  winrm: 'http' | 'https';
}

/** kubernetes.io "Ports and Protocols" plus what kubemix needs to reach the nodes. */
function securityGroupRules(provider: Ec2Provider, groups: InstanceGroupPlan[]): IngressRule[] {
  const operator = provider.operatorCidr;
  const rules: IngressRule[] = [
    // Control plane 6443, etcd 2379-2380, kubelet 10250, scheduler/controller-manager,
    // NodePorts, VXLAN 4789: all of it between members of the cluster.
    {
      protocol: '-1',
      fromPort: -1,
      toPort: -1,
      source: 'self',
      description: 'all traffic between cluster members',
    },
    {
      protocol: 'tcp',
      fromPort: 6443,
      toPort: 6443,
      source: operator,
      description: 'API server from the operator',
    },
  ];
  if (groups.some((g) => g.connection === 'ssh'))
    rules.push({
      protocol: 'tcp',
      fromPort: 22,
      toPort: 22,
      source: operator,
      description: 'SSH from the operator',
    });
  if (groups.some((g) => g.connection === 'winrm')) {
    const port = provider.winrm === 'https' ? 5986 : 5985;
    rules.push({
      protocol: 'tcp',
      fromPort: port,
      toPort: port,
      source: operator,
      description: 'WinRM from the operator',
    });
  }
  return rules;
}

/**
 * What kubemix will create on EC2 for a spec: network, security group and its rules, key pair,
 * one instance group per node group. Pure: no AWS calls, no clock.
 */
export function planEc2(spec: ClusterSpec): Ec2Plan {
  const provider = spec.provider;
  if (provider.type !== 'ec2') throw new TypeError(`planEc2 needs an ec2 spec, got ${provider.type}`);
  const name = spec.name;
  const pad = (n: number) => String(n).padStart(2, '0');
  const groups: InstanceGroupPlan[] = [];
  const cp = spec.nodes.controlPlane;
  groups.push(
    groupPlan(provider, {
      group: 'control-plane',
      specPath: 'nodes.controlPlane',
      os: 'linux',
      connection: cp.connection,
      instanceType: cp.instanceType,
      diskGiB: cp.diskGiB,
      nodes: Array.from({ length: cp.count }, (_, i) => `controller-${pad(i + 1)}`),
    }),
  );
  for (const [index, worker] of spec.nodes.workers.entries()) {
    if (worker.count === 0) continue;
    groups.push(
      groupPlan(provider, {
        group: worker.name,
        specPath: `nodes.workers.${index}`,
        os: worker.os,
        connection: worker.connection,
        windowsVersion: worker.windowsVersion,
        instanceType: worker.instanceType,
        diskGiB: worker.diskGiB,
        nodes: Array.from({ length: worker.count }, (_, i) => `${worker.name}-${pad(i + 1)}`),
      }),
    );
  }
  const network: NetworkPlan = provider.subnetId
    ? { kind: 'existing', subnetId: provider.subnetId, ...(provider.vpcId ? { vpcId: provider.vpcId } : {}) }
    : { kind: 'create', vpcCidr: provider.vpcCidr, subnetCidr: `${addressInCidr(provider.vpcCidr, 0)}/24` };
  return {
    cluster: name,
    ...(provider.region ? { region: provider.region } : {}),
    network,
    securityGroupName: `kubemix-${name}`,
    rules: securityGroupRules(provider, groups),
    keyPairName: `kubemix-${name}`,
    groups,
    connectVia: provider.connectVia,
    winrm: provider.winrm,
  };
}

interface GroupInput {
  group: string;
  specPath: string;
  os: HostOs;
  connection: ConnectionKind;
  windowsVersion?: WindowsVersion | undefined;
  instanceType: string | undefined;
  diskGiB: number | undefined;
  nodes: string[];
}

function groupPlan(provider: Ec2Provider, input: GroupInput): InstanceGroupPlan {
  const version = input.windowsVersion ?? '2022';
  const plan: InstanceGroupPlan = {
    group: input.group,
    specPath: input.specPath,
    os: input.os,
    connection: input.connection,
    instanceType: input.instanceType ?? DEFAULT_INSTANCE_TYPE[input.os],
    image: imageSource(provider, input.os, version),
    nodes: input.nodes,
  };
  if (input.os === 'windows') plan.windowsVersion = version;
  if (input.diskGiB !== undefined) plan.rootVolumeGiB = input.diskGiB;
  return plan;
}

function imageSource(provider: Ec2Provider, os: HostOs, version: WindowsVersion): ImageSource {
  const given = provider.images[os];
  if (given?.startsWith('ami-')) return { kind: 'id', imageId: given };
  if (given?.startsWith('ssm:')) return { kind: 'parameter', parameter: given.slice('ssm:'.length) };
  const search = os === 'linux' ? DEFAULT_IMAGE_SEARCH.linux : DEFAULT_IMAGE_SEARCH.windows(version);
  const parameter = os === 'linux' ? DEFAULT_IMAGE_PARAMETER.linux : DEFAULT_IMAGE_PARAMETER.windows(version);
  return { kind: 'default', parameter, ...search };
}
