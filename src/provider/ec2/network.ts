import {
  AssociateRouteTableCommand,
  AttachInternetGatewayCommand,
  AuthorizeSecurityGroupIngressCommand,
  CreateInternetGatewayCommand,
  CreateRouteCommand,
  CreateRouteTableCommand,
  CreateSecurityGroupCommand,
  CreateSubnetCommand,
  CreateVpcCommand,
  DescribeInternetGatewaysCommand,
  DescribeKeyPairsCommand,
  DescribeRouteTablesCommand,
  DescribeSecurityGroupsCommand,
  DescribeSubnetsCommand,
  DescribeVpcsCommand,
  ImportKeyPairCommand,
  type IpPermission,
} from '@aws-sdk/client-ec2';
import { describeAwsError } from './client.js';
import { withOwnIds } from './consistency.js';
import type { Ec2Context } from './context.js';
import { ensure, idempotent, tagSpec } from './ensure.js';
import { roleFilters } from './identity.js';
import type { Ec2Plan, IngressRule } from './plan.js';
import type { Ec2Preflight } from './validate.js';

/** What create-network made (or found): where instances go and how they are reached. */
export interface Ec2Network {
  vpcId: string;
  subnetId: string;
  securityGroupId: string;
  keyName: string;
}

const ipPermission = (rule: IngressRule, securityGroupId: string): IpPermission => ({
  IpProtocol: rule.protocol,
  ...(rule.protocol === '-1' ? {} : { FromPort: rule.fromPort, ToPort: rule.toPort }),
  ...(rule.source === 'self'
    ? { UserIdGroupPairs: [{ GroupId: securityGroupId, Description: rule.description }] }
    : { IpRanges: [{ CidrIp: rule.source, Description: rule.description }] }),
});

/** The first item of a Describe answer's list, if any. */
const first = <T>(items: T[] | undefined) => items?.[0];

/**
 * The VPC and subnet kubemix makes for a `create` network. A stage of its own because it is
 * what an `existing` network skips: the user's subnet is used as it is.
 */
async function createVpcAndSubnet(
  ctx: Ec2Context,
  network: { vpcCidr: string; subnetCidr: string },
  preflight: Ec2Preflight,
): Promise<{ vpcId: string; subnetId: string }> {
  const ec2 = ctx.aws.ec2;
  const vpcId = await ensure(
    ctx,
    'vpc',
    async () =>
      first((await ec2.send(new DescribeVpcsCommand({ Filters: roleFilters(ctx, 'vpc') }))).Vpcs)?.VpcId,
    async () =>
      (
        await ec2.send(
          new CreateVpcCommand({ CidrBlock: network.vpcCidr, TagSpecifications: tagSpec(ctx, 'vpc', 'vpc') }),
        )
      ).Vpc?.VpcId,
  );
  const subnetId = await ensure(
    ctx,
    'subnet',
    async () =>
      first((await ec2.send(new DescribeSubnetsCommand({ Filters: roleFilters(ctx, 'subnet') }))).Subnets)
        ?.SubnetId,
    async () =>
      (
        await withOwnIds(ctx, 'create-network: subnet', ['vpc'], () =>
          ec2.send(
            new CreateSubnetCommand({
              VpcId: vpcId,
              CidrBlock: network.subnetCidr,
              AvailabilityZone: preflight.availabilityZone,
              TagSpecifications: tagSpec(ctx, 'subnet', 'subnet'),
            }),
          ),
        )
      ).Subnet?.SubnetId,
  );
  return { vpcId, subnetId };
}

/** The internet gateway of a `create` network, made (or found) but not yet attached. */
async function ensureInternetGateway(ctx: Ec2Context): Promise<string> {
  const ec2 = ctx.aws.ec2;
  return ensure(
    ctx,
    'internet-gateway',
    async () =>
      first(
        (
          await ec2.send(
            new DescribeInternetGatewaysCommand({ Filters: roleFilters(ctx, 'internet-gateway') }),
          )
        ).InternetGateways,
      )?.InternetGatewayId,
    async () =>
      (
        await ec2.send(
          new CreateInternetGatewayCommand({
            TagSpecifications: tagSpec(ctx, 'internet-gateway', 'internet-gateway'),
          }),
        )
      ).InternetGateway?.InternetGatewayId,
  );
}

/**
 * Routes the new subnet through the internet gateway (attach, route table, default route,
 * association), so instances get out and the operator gets in. Each call is safe to repeat,
 * because a resumed run comes through here again; any failure is reported as this one stage.
 */
async function routeSubnetToInternet(
  ctx: Ec2Context,
  ids: { vpcId: string; subnetId: string; gatewayId: string },
): Promise<void> {
  const ec2 = ctx.aws.ec2;
  const { vpcId, subnetId, gatewayId } = ids;
  try {
    await withOwnIds(ctx, 'create-network: attaching the internet gateway', ['internet-gateway', 'vpc'], () =>
      idempotent(['Resource.AlreadyAssociated'], () =>
        ec2.send(new AttachInternetGatewayCommand({ InternetGatewayId: gatewayId, VpcId: vpcId })),
      ),
    );
    const tableId = await ensure(
      ctx,
      'route-table',
      async () =>
        first(
          (await ec2.send(new DescribeRouteTablesCommand({ Filters: roleFilters(ctx, 'route-table') })))
            .RouteTables,
        )?.RouteTableId,
      async () =>
        (
          await withOwnIds(ctx, 'create-network: route table', ['vpc'], () =>
            ec2.send(
              new CreateRouteTableCommand({
                VpcId: vpcId,
                TagSpecifications: tagSpec(ctx, 'route-table', 'route-table'),
              }),
            ),
          )
        ).RouteTable?.RouteTableId,
    );
    await withOwnIds(ctx, 'create-network: default route', ['route-table', 'internet-gateway'], () =>
      idempotent(['RouteAlreadyExists'], () =>
        ec2.send(
          new CreateRouteCommand({
            RouteTableId: tableId,
            DestinationCidrBlock: '0.0.0.0/0',
            GatewayId: gatewayId,
          }),
        ),
      ),
    );
    const table = first(
      (
        await withOwnIds(ctx, 'create-network: route table', ['route-table'], () =>
          ec2.send(new DescribeRouteTablesCommand({ RouteTableIds: [tableId] })),
        )
      ).RouteTables,
    );
    if (!table?.Associations?.some((a) => a.SubnetId === subnetId))
      await withOwnIds(ctx, 'create-network: route table association', ['route-table', 'subnet'], () =>
        ec2.send(new AssociateRouteTableCommand({ RouteTableId: tableId, SubnetId: subnetId })),
      );
  } catch (error) {
    throw describeAwsError('create-network: routing the subnet through the internet gateway', error);
  }
}

/**
 * The cluster security group and its ingress rules. Separate from the network above because
 * every cluster has one, in a VPC kubemix made or in the user's.
 */
async function ensureSecurityGroup(ctx: Ec2Context, plan: Ec2Plan, vpcId: string): Promise<string> {
  const ec2 = ctx.aws.ec2;
  const securityGroupId = await ensure(
    ctx,
    'security-group',
    async () =>
      first(
        (await ec2.send(new DescribeSecurityGroupsCommand({ Filters: roleFilters(ctx, 'security-group') })))
          .SecurityGroups,
      )?.GroupId,
    async () =>
      // The VPC is kubemix's own only when it made it; the spec's VPC unknown is an input error.
      (
        await withOwnIds(
          ctx,
          'create-network: security group',
          plan.network.kind === 'create' ? ['vpc'] : [],
          () =>
            ec2.send(
              new CreateSecurityGroupCommand({
                GroupName: plan.securityGroupName,
                Description: `kubemix cluster ${ctx.cluster}`,
                VpcId: vpcId,
                TagSpecifications: tagSpec(ctx, 'security-group', 'security-group'),
              }),
            ),
        )
      ).GroupId,
  );
  try {
    await withOwnIds(ctx, 'create-network: security group rules', ['security-group'], () =>
      idempotent(['InvalidPermission.Duplicate'], () =>
        ec2.send(
          new AuthorizeSecurityGroupIngressCommand({
            GroupId: securityGroupId,
            IpPermissions: plan.rules.map((rule) => ipPermission(rule, securityGroupId)),
          }),
        ),
      ),
    );
  } catch (error) {
    throw describeAwsError('create-network: security group rules', error);
  }
  return securityGroupId;
}

/** The cluster key pair, imported from the cluster's public key: how kubemix logs in to Linux nodes. */
async function ensureKeyPair(ctx: Ec2Context, plan: Ec2Plan, publicKey: string): Promise<void> {
  const ec2 = ctx.aws.ec2;
  await ensure(
    ctx,
    'key-pair',
    async () =>
      first((await ec2.send(new DescribeKeyPairsCommand({ Filters: roleFilters(ctx, 'key-pair') }))).KeyPairs)
        ?.KeyPairId,
    async () =>
      (
        await ec2.send(
          new ImportKeyPairCommand({
            KeyName: plan.keyPairName,
            PublicKeyMaterial: Buffer.from(publicKey),
            TagSpecifications: tagSpec(ctx, 'key-pair', 'key-pair'),
          }),
        )
      ).KeyPairId,
    { name: plan.keyPairName },
  );
}

/**
 * create-network: a new VPC + subnet + internet gateway + route table (or the user's subnet,
 * untouched), the cluster security group with its rules, and the cluster key pair imported from
 * the cluster's public key. Every resource is tagged and recorded; a resumed run reuses what exists.
 */
export async function createNetwork(
  ctx: Ec2Context,
  plan: Ec2Plan,
  preflight: Ec2Preflight,
  publicKey: string,
): Promise<Ec2Network> {
  let vpcId: string;
  let subnetId: string;
  if (plan.network.kind === 'existing') {
    vpcId = preflight.existing?.vpcId ?? '';
    subnetId = plan.network.subnetId;
  } else {
    ({ vpcId, subnetId } = await createVpcAndSubnet(ctx, plan.network, preflight));
    const gatewayId = await ensureInternetGateway(ctx);
    await routeSubnetToInternet(ctx, { vpcId, subnetId, gatewayId });
  }
  const securityGroupId = await ensureSecurityGroup(ctx, plan, vpcId);
  await ensureKeyPair(ctx, plan, publicKey);
  return { vpcId, subnetId, securityGroupId, keyName: plan.keyPairName };
}
