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
  type ResourceType,
} from '@aws-sdk/client-ec2';
import { awsErrorCode, describeAwsError } from './client.js';
import { type Ec2Context, type Ec2ResourceKind, record, recorded } from './context.js';
import { ownTags, roleFilters } from './identity.js';
import type { Ec2Plan, IngressRule } from './plan.js';
import type { Ec2Preflight } from './validate.js';

/** What create-network made (or found): where instances go and how they are reached. */
export interface Ec2Network {
  vpcId: string;
  subnetId: string;
  securityGroupId: string;
  keyName: string;
}

const tagSpec = (ctx: Ec2Context, type: ResourceType, role: string) => [
  { ResourceType: type, Tags: ownTags(ctx, role) },
];

/**
 * One resource, created at most once: a resumed run first looks for it by the cluster and role
 * tags (which the create call itself sets, so a crash between the call and its record leaves it
 * findable); otherwise the intent is recorded, then the create call runs, then the id is recorded.
 */
async function ensure(
  ctx: Ec2Context,
  kind: Ec2ResourceKind,
  find: () => Promise<string | undefined>,
  create: () => Promise<string | undefined>,
  details: Record<string, string> = {},
): Promise<string> {
  const doing = `create-network: ${kind}`;
  try {
    const found = await find();
    if (found) {
      if (recorded(ctx, kind, kind)?.details?.['id'] !== found)
        await record(ctx, kind, kind, 'created', { ...details, id: found });
      return found;
    }
    await record(ctx, kind, kind, 'intended', details);
    const id = await create();
    if (!id) throw new Error(`EC2 returned no id for the new ${kind}`);
    await record(ctx, kind, kind, 'created', { ...details, id });
    ctx.progress(`created ${kind} ${id}`);
    return id;
  } catch (error) {
    throw describeAwsError(doing, error);
  }
}

/** Runs a call whose "already done" answer (`codes`) means success. */
async function idempotent(codes: string[], send: () => Promise<unknown>): Promise<void> {
  try {
    await send();
  } catch (error) {
    if (!codes.includes(awsErrorCode(error) ?? '')) throw error;
  }
}

const ipPermission = (rule: IngressRule, securityGroupId: string): IpPermission => ({
  IpProtocol: rule.protocol,
  ...(rule.protocol === '-1' ? {} : { FromPort: rule.fromPort, ToPort: rule.toPort }),
  ...(rule.source === 'self'
    ? { UserIdGroupPairs: [{ GroupId: securityGroupId, Description: rule.description }] }
    : { IpRanges: [{ CidrIp: rule.source, Description: rule.description }] }),
});

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
  const ec2 = ctx.aws.ec2;
  const first = <T>(items: T[] | undefined) => items?.[0];
  let vpcId: string;
  let subnetId: string;
  if (plan.network.kind === 'existing') {
    vpcId = preflight.existing?.vpcId ?? '';
    subnetId = plan.network.subnetId;
  } else {
    const { vpcCidr, subnetCidr } = plan.network;
    vpcId = await ensure(
      ctx,
      'vpc',
      async () =>
        first((await ec2.send(new DescribeVpcsCommand({ Filters: roleFilters(ctx, 'vpc') }))).Vpcs)?.VpcId,
      async () =>
        (
          await ec2.send(
            new CreateVpcCommand({ CidrBlock: vpcCidr, TagSpecifications: tagSpec(ctx, 'vpc', 'vpc') }),
          )
        ).Vpc?.VpcId,
    );
    subnetId = await ensure(
      ctx,
      'subnet',
      async () =>
        first((await ec2.send(new DescribeSubnetsCommand({ Filters: roleFilters(ctx, 'subnet') }))).Subnets)
          ?.SubnetId,
      async () =>
        (
          await ec2.send(
            new CreateSubnetCommand({
              VpcId: vpcId,
              CidrBlock: subnetCidr,
              AvailabilityZone: preflight.availabilityZone,
              TagSpecifications: tagSpec(ctx, 'subnet', 'subnet'),
            }),
          )
        ).Subnet?.SubnetId,
    );
    const gatewayId = await ensure(
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
    try {
      await idempotent(['Resource.AlreadyAssociated'], () =>
        ec2.send(new AttachInternetGatewayCommand({ InternetGatewayId: gatewayId, VpcId: vpcId })),
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
            await ec2.send(
              new CreateRouteTableCommand({
                VpcId: vpcId,
                TagSpecifications: tagSpec(ctx, 'route-table', 'route-table'),
              }),
            )
          ).RouteTable?.RouteTableId,
      );
      await idempotent(['RouteAlreadyExists'], () =>
        ec2.send(
          new CreateRouteCommand({
            RouteTableId: tableId,
            DestinationCidrBlock: '0.0.0.0/0',
            GatewayId: gatewayId,
          }),
        ),
      );
      const table = first(
        (await ec2.send(new DescribeRouteTablesCommand({ RouteTableIds: [tableId] }))).RouteTables,
      );
      if (!table?.Associations?.some((a) => a.SubnetId === subnetId))
        await ec2.send(new AssociateRouteTableCommand({ RouteTableId: tableId, SubnetId: subnetId }));
    } catch (error) {
      throw describeAwsError('create-network: routing the subnet through the internet gateway', error);
    }
  }
  const securityGroupId = await ensure(
    ctx,
    'security-group',
    async () =>
      first(
        (await ec2.send(new DescribeSecurityGroupsCommand({ Filters: roleFilters(ctx, 'security-group') })))
          .SecurityGroups,
      )?.GroupId,
    async () =>
      (
        await ec2.send(
          new CreateSecurityGroupCommand({
            GroupName: plan.securityGroupName,
            Description: `kubemix cluster ${ctx.cluster}`,
            VpcId: vpcId,
            TagSpecifications: tagSpec(ctx, 'security-group', 'security-group'),
          }),
        )
      ).GroupId,
  );
  try {
    await idempotent(['InvalidPermission.Duplicate'], () =>
      ec2.send(
        new AuthorizeSecurityGroupIngressCommand({
          GroupId: securityGroupId,
          IpPermissions: plan.rules.map((rule) => ipPermission(rule, securityGroupId)),
        }),
      ),
    );
  } catch (error) {
    throw describeAwsError('create-network: security group rules', error);
  }
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
  return { vpcId, subnetId, securityGroupId, keyName: plan.keyPairName };
}
