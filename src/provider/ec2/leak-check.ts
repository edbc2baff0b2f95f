import {
  DescribeInternetGatewaysCommand,
  DescribeKeyPairsCommand,
  DescribeNetworkInterfacesCommand,
  DescribeRouteTablesCommand,
  DescribeSecurityGroupsCommand,
  DescribeSubnetsCommand,
  DescribeVolumesCommand,
  DescribeVpcsCommand,
} from '@aws-sdk/client-ec2';
import { describeAwsError } from './client.js';
import type { Ec2Context } from './context.js';
import { forgetIdentity, isOurs, ownerFilter } from './identity.js';
import { describeInstances } from './instances.js';
import { CLUSTER_ID_TAG, clusterNameFilter, ROLE_TAG, tagValue } from './tags.js';

/** One resource carrying the cluster's tag. */
export interface TaggedResource {
  /** `instance`, `volume`, `network interface`, `security group`, `VPC`... */
  kind: string;
  id: string;
  /** Its `kubemix.io/role` tag (`vpc`, `subnet`, `launch/<group>`...). */
  role?: string;
  /** Extra words for people: an instance's state, a key pair's name. */
  note?: string;
  /** Its `kubemix.io/cluster-id` tag, if any. */
  clusterId?: string;
  /** Ours (see identity.ts isOurs). */
  ours: boolean;
}

type Tags = { Key?: string; Value?: string }[] | undefined;

/**
 * Every resource of this cluster, of every type kubemix tags (instances not terminated, volumes,
 * network interfaces, security groups, VPCs, subnets, internet gateways, route tables, key pairs):
 * one filtered Describe per type.
 */
export async function listTagged(ctx: Ec2Context): Promise<TaggedResource[]> {
  return (await listByFilter(ctx, ownerFilter(ctx))).filter((r) => r.ours);
}

/**
 * What carries the cluster's name in the region but is not ours: another cluster of the same
 * name (another id), or one built before ids existed (none). `up` refuses to build beside it.
 */
export async function sameNameOthers(ctx: Ec2Context): Promise<TaggedResource[]> {
  return (await listByFilter(ctx, clusterNameFilter(ctx.cluster))).filter((r) => !r.ours);
}

async function listByFilter(
  ctx: Ec2Context,
  filter: { Name: string; Values: string[] },
): Promise<TaggedResource[]> {
  const ec2 = ctx.aws.ec2;
  const Filters = [filter];
  const item = (kind: string, id: string | undefined, tags: Tags, note?: string): TaggedResource => {
    const role = tagValue(tags, ROLE_TAG);
    const clusterId = tagValue(tags, CLUSTER_ID_TAG);
    return {
      kind,
      id: id ?? '?',
      ...(role ? { role } : {}),
      ...(note ? { note } : {}),
      ...(clusterId ? { clusterId } : {}),
      ours: isOurs(ctx, tags),
    };
  };
  const [instances, volumes, interfaces, groups, vpcs, subnets, gateways, tables, keys] = await Promise.all([
    describeInstances(ctx, filter),
    ec2.send(new DescribeVolumesCommand({ Filters })),
    ec2.send(new DescribeNetworkInterfacesCommand({ Filters })),
    ec2.send(new DescribeSecurityGroupsCommand({ Filters })),
    ec2.send(new DescribeVpcsCommand({ Filters })),
    ec2.send(new DescribeSubnetsCommand({ Filters })),
    ec2.send(new DescribeInternetGatewaysCommand({ Filters })),
    ec2.send(new DescribeRouteTablesCommand({ Filters })),
    ec2.send(new DescribeKeyPairsCommand({ Filters })),
  ]);
  return [
    ...instances.map((i) => item('instance', i.InstanceId, i.Tags, i.State?.Name)),
    ...(volumes.Volumes ?? []).map((v) => item('volume', v.VolumeId, v.Tags)),
    ...(interfaces.NetworkInterfaces ?? []).map((n) =>
      item('network interface', n.NetworkInterfaceId, n.TagSet),
    ),
    ...(groups.SecurityGroups ?? []).map((g) => item('security group', g.GroupId, g.Tags)),
    ...(vpcs.Vpcs ?? []).map((v) => item('VPC', v.VpcId, v.Tags)),
    ...(subnets.Subnets ?? []).map((s) => item('subnet', s.SubnetId, s.Tags)),
    ...(gateways.InternetGateways ?? []).map((g) => item('internet gateway', g.InternetGatewayId, g.Tags)),
    ...(tables.RouteTables ?? []).map((t) => item('route table', t.RouteTableId, t.Tags)),
    ...(keys.KeyPairs ?? []).map((k) => item('key pair', k.KeyPairId, k.Tags, k.KeyName)),
  ];
}

/**
 * The end of `kubemix down`: what of the cluster still exists, one "kind id (note)" each (empty:
 * nothing leaked, and the recorded identity is forgotten: the next `up` builds a new cluster).
 */
export async function findLeaks(ctx: Ec2Context): Promise<string[]> {
  let leaks: string[];
  try {
    leaks = (await listTagged(ctx)).map((r) => `${r.kind} ${r.id}${r.note ? ` (${r.note})` : ''}`);
  } catch (error) {
    throw describeAwsError('leak check', error);
  }
  if (leaks.length === 0) await forgetIdentity(ctx);
  return leaks;
}
