import {
  DeleteInternetGatewayCommand,
  DeleteKeyPairCommand,
  DeleteRouteTableCommand,
  DeleteSecurityGroupCommand,
  DeleteSubnetCommand,
  DeleteVolumeCommand,
  DeleteVpcCommand,
  DescribeInternetGatewaysCommand,
  DescribeKeyPairsCommand,
  DescribeRouteTablesCommand,
  DescribeSecurityGroupsCommand,
  DescribeSubnetsCommand,
  DescribeVolumesCommand,
  DescribeVpcsCommand,
  DetachInternetGatewayCommand,
  DisassociateRouteTableCommand,
  type Filter,
  TerminateInstancesCommand,
} from '@aws-sdk/client-ec2';
import { awsErrorCode, describeAwsError, isNotFound } from './client.js';
import type { Ec2Context } from './context.js';
import { ownerFilter } from './identity.js';
import { clusterInstances } from './instances.js';
import {
  byId,
  deleteWithRetry,
  describeByIds,
  liveInstancesByIds,
  owned,
  recordDeleted,
  recordedIds,
  recordedInstanceIds,
  union,
} from './teardown-records.js';
import { waitFor } from './wait.js';

/** What teardown must never delete: the user's own network, given by id in the spec. */
export interface TeardownOptions {
  keep: { vpcId?: string | undefined; subnetId?: string | undefined };
  /** Bound of each wait (instances terminating, interfaces detaching). Default 10 min. */
  timeoutMs?: number;
}

/** What every teardown stage shares: the context, the bound of each wait, and the owner filter. */
interface Teardown {
  ctx: Ec2Context;
  ec2: Ec2Context['aws']['ec2'];
  filters: Filter[];
  timeoutMs: number;
  keep: TeardownOptions['keep'];
  /** Runs one AWS call, naming what teardown was doing when it fails. */
  call: <T>(doing: string, send: () => Promise<T>) => Promise<T>;
}

/**
 * Terminates the cluster's instances (found by tag or recorded) and waits until they are gone:
 * first, because every other resource is in use while an instance runs.
 */
async function terminateInstances(t: Teardown): Promise<void> {
  const { ctx, ec2, call, timeoutMs } = t;
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
}

/** The security group (its interfaces detach after termination: deleteWithRetry waits for that). */
async function deleteSecurityGroups(t: Teardown): Promise<void> {
  const { ctx, ec2, call, filters, timeoutMs } = t;
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
}

/** The cluster key pair. */
async function deleteKeyPairs(t: Teardown): Promise<void> {
  const { ctx, ec2, call, filters, timeoutMs } = t;
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
}

/** Root volumes go with their instances (DeleteOnTermination); any left over are removed here. */
async function deleteLeftoverVolumes(t: Teardown): Promise<void> {
  const { ctx, ec2, call, filters, timeoutMs } = t;
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
}

/** kubemix's subnet, never the one the spec names. */
async function deleteSubnets(t: Teardown): Promise<void> {
  const { ctx, ec2, call, filters, timeoutMs } = t;
  const subnets =
    (await call('listing subnets', () => ec2.send(new DescribeSubnetsCommand({ Filters: filters }))))
      .Subnets ?? [];
  for (const id of union(
    subnets.filter((s) => owned(ctx, s)).map((s) => s.SubnetId),
    recordedIds(ctx, 'subnet'),
  ))
    if (id !== t.keep.subnetId)
      await deleteWithRetry(ctx, `subnet ${id}`, timeoutMs, () =>
        ec2.send(new DeleteSubnetCommand({ SubnetId: id })),
      );
  await recordDeleted(ctx, 'subnet');
}

/** The route table: its associations first (EC2 refuses to delete an associated table). */
async function deleteRouteTables(t: Teardown): Promise<void> {
  const { ctx, ec2, call, filters, timeoutMs } = t;
  const tables = byId(
    (
      (
        await call('listing route tables', () =>
          ec2.send(new DescribeRouteTablesCommand({ Filters: filters })),
        )
      ).RouteTables ?? []
    ).filter((table) => owned(ctx, table)),
    await call('describing the recorded route tables', () =>
      describeByIds(
        recordedIds(ctx, 'route-table'),
        async (RouteTableIds) =>
          (await ec2.send(new DescribeRouteTablesCommand({ RouteTableIds }))).RouteTables ?? [],
      ),
    ),
    (table) => table.RouteTableId,
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
    tables.map((table) => table.RouteTableId),
    recordedIds(ctx, 'route-table'),
  ))
    await deleteWithRetry(ctx, `route table ${id}`, timeoutMs, () =>
      ec2.send(new DeleteRouteTableCommand({ RouteTableId: id })),
    );
  await recordDeleted(ctx, 'route-table');
}

/** The internet gateway: detached from every VPC but the user's first, then deleted. */
async function deleteInternetGateways(t: Teardown): Promise<void> {
  const { ctx, ec2, call, filters, timeoutMs } = t;
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
      if (attachment.VpcId && attachment.VpcId !== t.keep.vpcId)
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
}

/** kubemix's VPC, last (everything above lives in it); never the one the spec names. */
async function deleteVpcs(t: Teardown): Promise<void> {
  const { ctx, ec2, call, filters, timeoutMs } = t;
  const vpcs =
    (await call('listing VPCs', () => ec2.send(new DescribeVpcsCommand({ Filters: filters })))).Vpcs ?? [];
  for (const id of union(
    vpcs.filter((v) => owned(ctx, v)).map((v) => v.VpcId),
    recordedIds(ctx, 'vpc'),
  ))
    if (id !== t.keep.vpcId)
      await deleteWithRetry(ctx, `VPC ${id}`, timeoutMs, () => ec2.send(new DeleteVpcCommand({ VpcId: id })));
  await recordDeleted(ctx, 'vpc');
}

/**
 * The EC2 part of `kubemix down`, in dependency order: terminate the cluster's instances and
 * wait until they are gone; then the security group (retrying DependencyViolation), the key
 * pair, the subnet, the route table, the internet gateway (detached first) and the VPC. Only
 * what carries the cluster's tags with `owned`, found by tag or recorded in the state; never
 * the VPC or subnet the spec names. Works from any failure point, also after a crash.
 */
export async function destroyCluster(ctx: Ec2Context, options: TeardownOptions): Promise<void> {
  const teardown: Teardown = {
    ctx,
    ec2: ctx.aws.ec2,
    filters: [ownerFilter(ctx)],
    timeoutMs: options.timeoutMs ?? 600_000,
    keep: options.keep,
    call: async (doing, send) => {
      try {
        return await send();
      } catch (error) {
        throw describeAwsError(`destroy: ${doing}`, error);
      }
    },
  };
  await terminateInstances(teardown);
  await deleteSecurityGroups(teardown);
  await deleteKeyPairs(teardown);
  await deleteLeftoverVolumes(teardown);
  await deleteSubnets(teardown);
  await deleteRouteTables(teardown);
  await deleteInternetGateways(teardown);
  await deleteVpcs(teardown);
}
