import { addressRules } from './address-rules.js';
import { cidrsOverlap, parseCidr } from './cidr.js';
import { windowsKubeProxySkewRule } from './kube-proxy-skew-rule.js';
import { libvirtNetworkSizeRule } from './libvirt-network-rule.js';
import { libvirtRules } from './libvirt-rules.js';
import { type CrossFieldRule, duplicateNames, generatedNodeName } from './rule-helpers.js';
import {
  DEFAULT_EC2_VPC_CIDR,
  DEFAULT_LIBVIRT_CIDR,
  DEFAULT_POD_CIDR,
  DEFAULT_SERVICE_CIDR,
  WINDOWS_MIN_VNI,
  WINDOWS_VXLAN_PORT,
} from './schema.js';
import type { RuleIssue, SpecPath, SpecView } from './spec-view.js';
import { staticHostRules } from './static-host-rules.js';
import { windowsReleaseRule } from './windows-release-rule.js';

/** Worker group names kubemix uses itself (inventory groups). */
export const RESERVED_GROUP_NAMES = ['control-plane', 'hypervisors'] as const;

/** Windows overlay networking (HNS) needs VNI >= 4096 and UDP 4789 (flannel-io/flannel#1215). */
export const windowsNetworkingRule: CrossFieldRule = (spec) => {
  const windows = spec.workers.find((g) => g.os === 'windows' && (g.count ?? 0) > 0);
  if (!windows) return [];
  const withWindows = `cannot be used with Windows workers (group "${windows.name ?? windows.index}")`;
  const issues: RuleIssue[] = [];
  const { vni, port } = spec.network;
  if (vni !== undefined && vni < WINDOWS_MIN_VNI) {
    issues.push({
      path: ['network', 'flannel', 'vni'],
      message: `VNI ${vni} ${withWindows}: Windows overlay networking (HNS) requires VNI >= ${WINDOWS_MIN_VNI}`,
    });
  }
  if (port !== undefined && port !== WINDOWS_VXLAN_PORT) {
    issues.push({
      path: ['network', 'flannel', 'port'],
      message: `port ${port} ${withWindows}: Windows overlay networking (HNS) requires UDP port ${WINDOWS_VXLAN_PORT}`,
    });
  }
  return issues;
};

/** Windows-only settings on linux groups, and connections a Windows group cannot use. */
export const groupOsRule: CrossFieldRule = (spec) => {
  const issues: RuleIssue[] = [];
  for (const group of spec.workers) {
    const at = (key: string): SpecPath => ['nodes', 'workers', group.index, key];
    if (group.os === 'linux') {
      if (group.windowsVersion !== undefined) {
        issues.push({
          path: at('windowsVersion'),
          message: 'windowsVersion only applies to windows groups (this group has os linux)',
        });
      }
      for (const key of ['taint', 'hyperV'] as const) {
        if (group[key] === true)
          issues.push({
            path: at(key),
            message: `${key} only applies to windows groups (this group has os linux)`,
          });
      }
    }
    if (group.os === 'windows' && group.connection === 'local') {
      issues.push({
        path: at('connection'),
        message: 'a windows group cannot use connection local (use winrm or ssh)',
      });
    }
  }
  return issues;
};

/** Worker group and hypervisor names are unique; reserved group names are refused. */
export const uniqueNamesRule: CrossFieldRule = (spec) => {
  const issues = duplicateNames(spec.workers, ['nodes', 'workers'], 'worker group');
  for (const group of spec.workers) {
    if (group.name !== undefined && (RESERVED_GROUP_NAMES as readonly string[]).includes(group.name)) {
      issues.push({
        path: ['nodes', 'workers', group.index, 'name'],
        message: `"${group.name}" is reserved for kubemix's own group; choose another worker group name`,
      });
    }
  }
  if (spec.provider.type === 'libvirt')
    issues.push(...duplicateNames(spec.provider.hypervisors, ['provider', 'hypervisors'], 'hypervisor'));
  return issues;
};

/**
 * On providers that create hosts, node names come from group names (`<group>-01`...): they
 * must not collide with each other, with the controllers or with hypervisor names.
 */
export const generatedNodeNamesRule: CrossFieldRule = (spec) => {
  if (spec.provider.type !== 'libvirt' && spec.provider.type !== 'ec2') return [];
  const owners = new Map<string, string>();
  const issues: RuleIssue[] = [];
  const claim = (names: string[], owner: string, path: SpecPath) => {
    const taken = names.find((name) => owners.has(name));
    // Two groups (or hypervisors) with one name are reported as duplicates, not here.
    if (taken !== undefined && owners.get(taken) === owner) return;
    if (taken !== undefined) {
      issues.push({
        path,
        message: `node name ${taken} of ${owner} collides with ${owners.get(taken)}; rename one of them`,
      });
      return;
    }
    for (const name of names) owners.set(name, owner);
  };
  // Counts are capped: the schema reports absurd ones, this rule only needs the names.
  const names = (group: string, count: number) =>
    Array.from({ length: Math.min(Math.max(count, 0), 1000) }, (_, i) => generatedNodeName(group, i + 1));
  claim(names('control-plane', spec.controlPlane.count ?? 1), 'the control plane', ['nodes', 'controlPlane']);
  for (const group of spec.workers) {
    if (group.name === undefined || group.count === undefined) continue;
    claim(names(group.name, group.count), `worker group "${group.name}"`, [
      'nodes',
      'workers',
      group.index,
      'name',
    ]);
  }
  for (const hypervisor of spec.provider.type === 'libvirt' ? spec.provider.hypervisors : []) {
    if (hypervisor.name === undefined) continue;
    claim([hypervisor.name], `hypervisor "${hypervisor.name}"`, [
      'provider',
      'hypervisors',
      hypervisor.index,
      'name',
    ]);
  }
  return issues;
};

interface Range {
  path: SpecPath;
  value: string;
  /** False when the range is a default the user did not write. */
  written: boolean;
}

/** Pod, service and the machines' network ranges (libvirt guest network, EC2 VPC) must not overlap. */
export const cidrOverlapRule: CrossFieldRule = (spec) => {
  const range = (path: SpecPath, written: string | undefined, fallback: string): Range => ({
    path,
    value: written ?? fallback,
    written: written !== undefined,
  });
  const ranges = [
    range(['network', 'podCIDR'], spec.network.podCIDR, DEFAULT_POD_CIDR),
    range(['network', 'serviceCIDR'], spec.network.serviceCIDR, DEFAULT_SERVICE_CIDR),
  ];
  if (spec.provider.type === 'libvirt')
    ranges.push(range(['provider', 'network', 'cidr'], spec.provider.networkCIDR, DEFAULT_LIBVIRT_CIDR));
  // An existing subnet's range is known only to AWS: prepare-provider checks it.
  if (
    spec.provider.type === 'ec2' &&
    spec.provider.subnetId === undefined &&
    spec.provider.vpcId === undefined
  )
    ranges.push(range(['provider', 'vpcCidr'], spec.provider.vpcCidr, DEFAULT_EC2_VPC_CIDR));
  const issues: RuleIssue[] = [];
  ranges.forEach((a, i) => {
    for (const b of ranges.slice(i + 1)) {
      const [pa, pb] = [parseCidr(a.value), parseCidr(b.value)];
      if (!pa || !pb || !cidrsOverlap(pa, pb)) continue;
      // Report at the range the user wrote; a default cannot be the one to fix.
      const [at, other] = b.written ? [b, a] : [a, b];
      const otherName = `${other.path.join('.')} (${other.value}${other.written ? '' : ', the default'})`;
      issues.push({ path: at.path, message: `${at.value} overlaps ${otherName}` });
    }
  });
  return issues;
};

/**
 * EC2: an existing VPC is used only through a subnet the user names (kubemix never adds subnets
 * to a VPC it does not own). Private addresses only with that network: the VPC kubemix creates
 * routes through an internet gateway alone (no NAT), so instances without a public address have
 * no egress (packages, images) and nothing of the operator's is inside to reach them.
 */
export const ec2NetworkRule: CrossFieldRule = (spec) => {
  if (spec.provider.type !== 'ec2') return [];
  if (spec.provider.vpcId !== undefined && spec.provider.subnetId === undefined)
    return [
      {
        path: ['provider', 'vpcId'],
        message: 'needs subnetId: kubemix never adds a subnet to a VPC it did not create',
      },
    ];
  if (spec.provider.connectVia === 'private' && spec.provider.subnetId === undefined)
    return [
      {
        path: ['provider', 'connectVia'],
        message:
          'private needs an existing network (provider.vpcId and provider.subnetId) with a way in and out: the VPC kubemix creates has no NAT, so private-only instances get no egress and cannot be reached',
      },
    ];
  return [];
};

/** instanceType is EC2's sizing; vcpus and memoryGiB are the libvirt provider's. */
export const sizingRule: CrossFieldRule = (spec) => {
  const type = spec.provider.type;
  if (type === undefined) return [];
  const groups: { path: SpecPath; sizing: string[] }[] = [
    { path: ['nodes', 'controlPlane'], sizing: spec.controlPlane.sizing },
    ...spec.workers.map((g) => ({ path: ['nodes', 'workers', g.index] as SpecPath, sizing: g.sizing })),
  ];
  const issues: RuleIssue[] = [];
  for (const { path, sizing } of groups) {
    for (const key of sizing) {
      if (key === 'instanceType' && type !== 'ec2')
        issues.push({
          path: [...path, key],
          message: `instanceType only applies to provider ec2 (this is ${type})`,
        });
      if ((key === 'vcpus' || key === 'memoryGiB') && type === 'ec2')
        issues.push({
          path: [...path, key],
          message: `${key} does not apply to provider ec2: the instanceType decides`,
        });
    }
  }
  return issues;
};

/** Every cross-field rule, in the order their issues are reported. */
export const CROSS_FIELD_RULES: readonly CrossFieldRule[] = [
  windowsNetworkingRule,
  groupOsRule,
  uniqueNamesRule,
  generatedNodeNamesRule,
  cidrOverlapRule,
  windowsKubeProxySkewRule,
  windowsReleaseRule,
  ec2NetworkRule,
  sizingRule,
  libvirtRules,
  libvirtNetworkSizeRule,
  ...staticHostRules,
  ...addressRules,
];

/** Runs every cross-field rule on a spec as written (any shape; the schema reports shape problems). */
export function checkCrossFieldRules(spec: SpecView): RuleIssue[] {
  return CROSS_FIELD_RULES.flatMap((rule) => rule(spec));
}
