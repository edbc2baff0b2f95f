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
import { clusterInstances } from './instances.js';
import { clusterFilter } from './tags.js';

/**
 * The end of `kubemix down`: every resource type kubemix tags (instances, volumes, network
 * interfaces, security groups, VPCs, subnets, internet gateways, route tables, key pairs) is
 * listed by the cluster tag. Returns what is left, one "kind id" each (empty: nothing leaked).
 */
export async function findLeaks(ctx: Ec2Context): Promise<string[]> {
  const ec2 = ctx.aws.ec2;
  const Filters = [clusterFilter(ctx.cluster)];
  try {
    const [instances, volumes, interfaces, groups, vpcs, subnets, gateways, tables, keys] = await Promise.all(
      [
        clusterInstances(ctx),
        ec2.send(new DescribeVolumesCommand({ Filters })),
        ec2.send(new DescribeNetworkInterfacesCommand({ Filters })),
        ec2.send(new DescribeSecurityGroupsCommand({ Filters })),
        ec2.send(new DescribeVpcsCommand({ Filters })),
        ec2.send(new DescribeSubnetsCommand({ Filters })),
        ec2.send(new DescribeInternetGatewaysCommand({ Filters })),
        ec2.send(new DescribeRouteTablesCommand({ Filters })),
        ec2.send(new DescribeKeyPairsCommand({ Filters })),
      ],
    );
    return [
      ...instances.map((i) => `instance ${i.InstanceId} (${i.State?.Name})`),
      ...(volumes.Volumes ?? []).map((v) => `volume ${v.VolumeId}`),
      ...(interfaces.NetworkInterfaces ?? []).map((n) => `network interface ${n.NetworkInterfaceId}`),
      ...(groups.SecurityGroups ?? []).map((g) => `security group ${g.GroupId}`),
      ...(vpcs.Vpcs ?? []).map((v) => `VPC ${v.VpcId}`),
      ...(subnets.Subnets ?? []).map((s) => `subnet ${s.SubnetId}`),
      ...(gateways.InternetGateways ?? []).map((g) => `internet gateway ${g.InternetGatewayId}`),
      ...(tables.RouteTables ?? []).map((t) => `route table ${t.RouteTableId}`),
      ...(keys.KeyPairs ?? []).map((k) => `key pair ${k.KeyName} (${k.KeyPairId})`),
    ];
  } catch (error) {
    throw describeAwsError('leak check', error);
  }
}
