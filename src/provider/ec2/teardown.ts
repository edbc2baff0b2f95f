import {
  DeleteInternetGatewayCommand,
  DeleteKeyPairCommand,
  DeleteRouteTableCommand,
  DeleteSecurityGroupCommand,
  DeleteSubnetCommand,
  DeleteVolumeCommand,
  DeleteVpcCommand,
  DescribeInstancesCommand,
  DescribeInternetGatewaysCommand,
  DescribeKeyPairsCommand,
  DescribeRouteTablesCommand,
  DescribeSecurityGroupsCommand,
  DescribeSubnetsCommand,
  DescribeVolumesCommand,
  DescribeVpcsCommand,
  DetachInternetGatewayCommand,
  DisassociateRouteTableCommand,
  TerminateInstancesCommand,
} from '@aws-sdk/client-ec2';
import { awsErrorCode, describeAwsError, isNotFound } from './client.js';
import type { Ec2Context, Ec2ResourceKind } from './context.js';
import { isOurs, ownerFilter } from './identity.js';
import { clusterInstances, LIVE_STATES } from './instances.js';
import { kubernetesClusterTag, tagValue } from './tags.js';
import { waitFor } from './wait.js';

/** What teardown must never delete: the user's own network, given by id in the spec. */
export interface TeardownOptions {
  keep: { vpcId?: string | undefined; subnetId?: string | undefined };
  /** Bound of each wait (instances terminating, interfaces detaching). Default 10 min. */
  timeoutMs?: number;
}

type Tagged = { Tags?: { Key?: string; Value?: string }[] };

/**
 * Ours to delete: the cluster's id (identity.ts) AND Kubernetes' `owned` (a `shared` resource is
 * never deleted).
 */
const owned = (ctx: Ec2Context, resource: Tagged) =>
  isOurs(ctx, resource.Tags) && tagValue(resource.Tags, kubernetesClusterTag(ctx.cluster)) === 'owned';

/** Recorded ids of a kind that may still exist. */
function recordedIds(ctx: Ec2Context, kind: Ec2ResourceKind, detail = 'id'): string[] {
  return ctx.ledger.resources
    .filter(
      (r) =>
        r.provider === 'ec2' && r.kind === kind && r.location === ctx.aws.region && r.status !== 'deleted',
    )
    .flatMap((r) => (r.details?.[detail] ? [r.details[detail]] : []));
}

/** Marks every record of a kind deleted. */
async function recordDeleted(ctx: Ec2Context, kind: Ec2ResourceKind): Promise<void> {
  const records = ctx.ledger.resources.filter(
    (r) => r.provider === 'ec2' && r.kind === kind && r.location === ctx.aws.region && r.status !== 'deleted',
  );
  if (records.length === 0) return;
  await ctx.ledger.record({
    resources: records.map((r) => ({
      provider: 'ec2',
      kind,
      name: r.name,
      location: r.location,
      status: 'deleted',
      ...(r.details ? { details: r.details } : {}),
    })),
  });
}

/**
 * Deletes with retries while AWS answers DependencyViolation (network interfaces of terminated
 * instances detach asynchronously); an already-gone resource is fine.
 */
async function deleteWithRetry(
  ctx: Ec2Context,
  what: string,
  timeoutMs: number,
  send: () => Promise<unknown>,
) {
  await waitFor(
    ctx,
    { what: `${what} to be deletable`, timeoutMs, intervalMs: 2000, maxIntervalMs: 10_000 },
    async () => {
      try {
        await send();
        return { done: true };
      } catch (error) {
        if (isNotFound(error)) return { done: true };
        if (awsErrorCode(error) === 'DependencyViolation')
          return { progress: 'still in use (DependencyViolation)' };
        throw describeAwsError(`destroy: deleting ${what}`, error);
      }
    },
  );
  ctx.progress(`deleted ${what}`);
}

/**
 * The EC2 part of `kubemix down`, in dependency order: terminate the cluster's instances and
 * wait until they are gone; then the security group (retrying DependencyViolation), the key
 * pair, the subnet, the route table, the internet gateway (detached first) and the VPC. Only
 * what carries the cluster's tags with `owned`, found by tag or recorded in the state; never
 * the VPC or subnet the spec names. Works from any failure point, also after a crash.
 */
export async function destroyCluster(ctx: Ec2Context, options: TeardownOptions): Promise<void> {
  const timeoutMs = options.timeoutMs ?? 600_000;
  const ec2 = ctx.aws.ec2;
  const filters = [ownerFilter(ctx)];
  const call = async <T>(doing: string, send: () => Promise<T>): Promise<T> => {
    try {
      return await send();
    } catch (error) {
      throw describeAwsError(`destroy: ${doing}`, error);
    }
  };

  const instances = byId(
    (await call('listing instances', () => clusterInstances(ctx))).filter((i) => owned(ctx, i)),
    await call('describing the recorded instances', () => liveInstancesByIds(ctx, recordedInstanceIds(ctx))),
    (i) => i.InstanceId,
  );
  const ids = instances.flatMap((i) => (i.InstanceId ? [i.InstanceId] : []));
  if (ids.length > 0) {
    // Listed by a filtered Describe, yet unknown to TerminateInstances for a moment after launch
    // (EC2's eventual consistency): retried within the bound.
    await waitFor(ctx, { what: `EC2 to know ${ids.length} new instance(s)`, timeoutMs }, async () => {
      try {
        await ec2.send(new TerminateInstancesCommand({ InstanceIds: ids }));
        return { done: true };
      } catch (error) {
        if (awsErrorCode(error) === 'InvalidInstanceID.NotFound')
          return { progress: 'InvalidInstanceID.NotFound' };
        throw describeAwsError('destroy: terminating instances', error);
      }
    });
    ctx.progress(`terminating ${ids.length} instance(s)`);
    await waitFor(ctx, { what: `${ids.length} instance(s) to terminate`, timeoutMs }, async () => {
      const left = await call('waiting for instances', () => liveInstancesByIds(ctx, ids));
      return left.length === 0 ? { done: true } : { progress: `${left.length} not terminated yet` };
    });
  }
  await recordDeleted(ctx, 'instance');
  await recordDeleted(ctx, 'launch');

  const groups =
    (
      await call('listing security groups', () =>
        ec2.send(new DescribeSecurityGroupsCommand({ Filters: filters })),
      )
    ).SecurityGroups ?? [];
  for (const id of union(
    groups.filter((g) => owned(ctx, g)).map((g) => g.GroupId),
    recordedIds(ctx, 'security-group'),
  ))
    await deleteWithRetry(ctx, `security group ${id}`, timeoutMs, () =>
      ec2.send(new DeleteSecurityGroupCommand({ GroupId: id })),
    );
  await recordDeleted(ctx, 'security-group');

  // By name: EC2 takes KeyName or KeyPairId, moto only KeyName; the name is the cluster's.
  const keys =
    (await call('listing key pairs', () => ec2.send(new DescribeKeyPairsCommand({ Filters: filters }))))
      .KeyPairs ?? [];
  for (const name of union(
    keys.filter((k) => owned(ctx, k)).map((k) => k.KeyName),
    recordedIds(ctx, 'key-pair', 'name'),
  ))
    await deleteWithRetry(ctx, `key pair ${name}`, timeoutMs, () =>
      ec2.send(new DeleteKeyPairCommand({ KeyName: name })),
    );
  await recordDeleted(ctx, 'key-pair');

  // Root volumes go with their instances (DeleteOnTermination); any left over are removed here.
  const volumes =
    (
      await call('listing volumes', () =>
        ec2.send(
          new DescribeVolumesCommand({ Filters: [...filters, { Name: 'status', Values: ['available'] }] }),
        ),
      )
    ).Volumes ?? [];
  for (const volume of volumes.filter((v) => owned(ctx, v)))
    if (volume.VolumeId)
      await deleteWithRetry(ctx, `volume ${volume.VolumeId}`, timeoutMs, () =>
        ec2.send(new DeleteVolumeCommand({ VolumeId: volume.VolumeId })),
      );

  const subnets =
    (await call('listing subnets', () => ec2.send(new DescribeSubnetsCommand({ Filters: filters }))))
      .Subnets ?? [];
  for (const id of union(
    subnets.filter((s) => owned(ctx, s)).map((s) => s.SubnetId),
    recordedIds(ctx, 'subnet'),
  ))
    if (id !== options.keep.subnetId)
      await deleteWithRetry(ctx, `subnet ${id}`, timeoutMs, () =>
        ec2.send(new DeleteSubnetCommand({ SubnetId: id })),
      );
  await recordDeleted(ctx, 'subnet');

  const tables = byId(
    (
      (
        await call('listing route tables', () =>
          ec2.send(new DescribeRouteTablesCommand({ Filters: filters })),
        )
      ).RouteTables ?? []
    ).filter((t) => owned(ctx, t)),
    await call('describing the recorded route tables', () =>
      describeByIds(
        recordedIds(ctx, 'route-table'),
        async (RouteTableIds) =>
          (await ec2.send(new DescribeRouteTablesCommand({ RouteTableIds }))).RouteTables ?? [],
      ),
    ),
    (t) => t.RouteTableId,
  );
  for (const table of tables)
    for (const association of table.Associations ?? [])
      if (association.RouteTableAssociationId && !association.Main)
        await call('detaching the route table', () =>
          ec2.send(new DisassociateRouteTableCommand({ AssociationId: association.RouteTableAssociationId })),
        ).catch((error) => {
          if (!isNotFound(error.cause)) throw error;
        });
  for (const id of union(
    tables.map((t) => t.RouteTableId),
    recordedIds(ctx, 'route-table'),
  ))
    await deleteWithRetry(ctx, `route table ${id}`, timeoutMs, () =>
      ec2.send(new DeleteRouteTableCommand({ RouteTableId: id })),
    );
  await recordDeleted(ctx, 'route-table');

  const gateways = byId(
    (
      (
        await call('listing internet gateways', () =>
          ec2.send(new DescribeInternetGatewaysCommand({ Filters: filters })),
        )
      ).InternetGateways ?? []
    ).filter((g) => owned(ctx, g)),
    await call('describing the recorded internet gateways', () =>
      describeByIds(
        recordedIds(ctx, 'internet-gateway'),
        async (InternetGatewayIds) =>
          (await ec2.send(new DescribeInternetGatewaysCommand({ InternetGatewayIds }))).InternetGateways ??
          [],
      ),
    ),
    (g) => g.InternetGatewayId,
  );
  for (const gateway of gateways)
    for (const attachment of gateway.Attachments ?? [])
      if (attachment.VpcId && attachment.VpcId !== options.keep.vpcId)
        await deleteWithRetry(
          ctx,
          `internet gateway ${gateway.InternetGatewayId} attachment`,
          timeoutMs,
          () =>
            ec2
              .send(
                new DetachInternetGatewayCommand({
                  InternetGatewayId: gateway.InternetGatewayId,
                  VpcId: attachment.VpcId,
                }),
              )
              .catch((error) => {
                if (awsErrorCode(error) !== 'Gateway.NotAttached') throw error;
              }),
        );
  for (const id of union(
    gateways.map((g) => g.InternetGatewayId),
    recordedIds(ctx, 'internet-gateway'),
  ))
    await deleteWithRetry(ctx, `internet gateway ${id}`, timeoutMs, () =>
      ec2.send(new DeleteInternetGatewayCommand({ InternetGatewayId: id })),
    );
  await recordDeleted(ctx, 'internet-gateway');

  const vpcs =
    (await call('listing VPCs', () => ec2.send(new DescribeVpcsCommand({ Filters: filters })))).Vpcs ?? [];
  for (const id of union(
    vpcs.filter((v) => owned(ctx, v)).map((v) => v.VpcId),
    recordedIds(ctx, 'vpc'),
  ))
    if (id !== options.keep.vpcId)
      await deleteWithRetry(ctx, `VPC ${id}`, timeoutMs, () => ec2.send(new DeleteVpcCommand({ VpcId: id })));
  await recordDeleted(ctx, 'vpc');
}

/**
 * Recorded resources a tag lookup may still miss (EC2's tag filters lag a new resource: EC2 API
 * Reference, "Eventual consistency in the Amazon EC2 API"), described by id. An id EC2 no longer
 * knows is gone; one unknown id fails a Describe of several, so those are asked one by one.
 */
async function describeByIds<T>(ids: string[], describe: (ids: string[]) => Promise<T[]>): Promise<T[]> {
  if (ids.length === 0) return [];
  try {
    return await describe(ids);
  } catch (error) {
    if (!isNotFound(error) || ids.length === 1) {
      if (isNotFound(error)) return [];
      throw error;
    }
  }
  const found: T[] = [];
  for (const id of ids) found.push(...(await describeByIds([id], describe)));
  return found;
}

/** The instances of these ids that are not terminated yet (every state but `terminated`). */
const liveInstancesByIds = (ctx: Ec2Context, ids: string[]) =>
  describeByIds(ids, async (InstanceIds) =>
    ((await ctx.aws.ec2.send(new DescribeInstancesCommand({ InstanceIds }))).Reservations ?? [])
      .flatMap((r) => r.Instances ?? [])
      .filter((i) => LIVE_STATES.includes(i.State?.Name ?? '')),
  );

/** The instance ids the state holds: each node's, and each launch's (recorded before its instances ran). */
function recordedInstanceIds(ctx: Ec2Context): string[] {
  const launched = recordedIds(ctx, 'launch', 'instances').flatMap((list) => list.split(','));
  return union(recordedIds(ctx, 'instance'), launched);
}

/** Found by tag and described by id, each resource once. */
const byId = <T>(found: T[], described: T[], id: (resource: T) => string | undefined): T[] => [
  ...new Map([...found, ...described].map((r) => [id(r), r])).values(),
];

const union = (found: (string | undefined)[], recorded: string[]): string[] =>
  [...new Set([...found, ...recorded])].filter((id): id is string => id !== undefined && id !== '');
