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
import { KubemixError } from '../../errors/index.js';
import { awsErrorCode, describeAwsError } from './client.js';
import { awaitExists, withOwnIds } from './consistency.js';
import { type Ec2Context, type Ec2ResourceKind, record, recorded } from './context.js';
import { ownTags, roleFilters } from './identity.js';
import type { Ec2Plan, IngressRule } from './plan.js';
import type { Ec2Preflight } from './validate.js';
import { waitFor } from './wait.js';

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

/** How long a resumed run looks (by tag) for a resource whose create call may have happened. */
const INTENDED_LOOKUP_MS = 30_000;

/**
 * One resource, created at most once. A resumed run trusts the recorded id first (once EC2 knows
 * it): a tag lookup may not see a resource made moments ago (EC2 API Reference, "Eventual
 * consistency in the Amazon EC2 API") and would make a second one. Then the cluster and role
 * tags (which the create call itself sets, so a crash between the call and its record leaves it
 * findable), looked up for a while when the record says the create may have happened. Otherwise
 * the intent is recorded, the create call runs, the id is recorded, and kubemix waits until EC2
 * knows the new id before anything uses it.
 */
async function ensure(
  ctx: Ec2Context,
  kind: Ec2ResourceKind,
  find: () => Promise<string | undefined>,
  create: () => Promise<string | undefined>,
  details: Record<string, string> = {},
): Promise<string> {
  const doing = `create-network: ${kind}`;
  const started = ctx.clock.now();
  try {
    const known = recorded(ctx, kind, kind);
    const knownId = known?.status === 'created' ? known.details?.['id'] : undefined;
    if (knownId && (await awaitExists(ctx, kind, knownId, INTENDED_LOOKUP_MS))) return knownId;
    const found =
      known?.status === 'intended' && known.details?.['refused'] === undefined
        ? await waitFor<string | undefined>(
            ctx,
            { what: `a ${kind} an interrupted run may have made`, timeoutMs: INTENDED_LOOKUP_MS + 60_000 },
            async () => {
              const id = await find();
              if (id || ctx.clock.now() - started >= INTENDED_LOOKUP_MS) return { done: id };
              return { progress: 'not found by its tags yet' };
            },
          )
        : await find();
    if (found) {
      if (knownId !== found) await record(ctx, kind, kind, 'created', { ...details, id: found });
      return found;
    }
    await record(ctx, kind, kind, 'intended', details);
    const id = await create().catch(async (error: unknown) => {
      // EC2 answered with a client error: nothing was made, a resume need not look for it.
      const refused = refusal(error);
      if (refused) await record(ctx, kind, kind, 'intended', { ...details, refused });
      throw error;
    });
    if (!id) throw new Error(`EC2 returned no id for the new ${kind}`);
    await record(ctx, kind, kind, 'created', { ...details, id });
    ctx.progress(`created ${kind} ${id}`);
    if (!(await awaitExists(ctx, kind, id)))
      throw new KubemixError(`${doing}: EC2 still does not know the new ${kind} ${id}`);
    return id;
  } catch (error) {
    throw describeAwsError(doing, error);
  }
}

/** The code of an AWS answer that refused a call (HTTP 4xx: the call did nothing), if it is one. */
function refusal(error: unknown): string | undefined {
  const aws = error instanceof KubemixError && error.cause !== undefined ? error.cause : error;
  const status = (aws as { $metadata?: { httpStatusCode?: number } } | undefined)?.$metadata?.httpStatusCode;
  return status !== undefined && status >= 400 && status < 500 ? (awsErrorCode(aws) ?? 'refused') : undefined;
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
          await withOwnIds(ctx, 'create-network: subnet', ['vpc'], () =>
            ec2.send(
              new CreateSubnetCommand({
                VpcId: vpcId,
                CidrBlock: subnetCidr,
                AvailabilityZone: preflight.availabilityZone,
                TagSpecifications: tagSpec(ctx, 'subnet', 'subnet'),
              }),
            ),
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
      await withOwnIds(
        ctx,
        'create-network: attaching the internet gateway',
        ['internet-gateway', 'vpc'],
        () =>
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
