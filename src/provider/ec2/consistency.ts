import {
  DescribeInternetGatewaysCommand,
  DescribeRouteTablesCommand,
  DescribeSecurityGroupsCommand,
  DescribeSubnetsCommand,
  DescribeVpcsCommand,
} from '@aws-sdk/client-ec2';
import { awsErrorCode, describeAwsError } from './client.js';
import type { Ec2Context, Ec2ResourceKind } from './context.js';
import { waitFor } from './wait.js';

/**
 * EC2's eventual consistency (EC2 API Reference, "Eventual consistency in the Amazon EC2 API"): an
 * id a create call just returned may be unknown to the next calls for a while, which answer that
 * kind's NotFound. kubemix waits for a new resource to exist before it uses it, as
 * terraform-provider-aws does after CreateSecurityGroup ("Wait for the security group to truly
 * exist": resourceAwsSecurityGroupCreate, waitForSgToExist, aws/resource_aws_security_group.go
 * lines 267-273 and 813-828 at tag v1.60.0), and retries a call naming its own new ids while they
 * are unknown. The same codes for an id the spec names stay input errors (client.ts).
 */

/** The NotFound codes EC2 answers for an unknown id of each kind (EC2 API Reference, "Error codes"). */
export const NOT_FOUND: Partial<Record<Ec2ResourceKind, string[]>> = {
  vpc: ['InvalidVpcID.NotFound'],
  subnet: ['InvalidSubnetID.NotFound'],
  'internet-gateway': ['InvalidInternetGatewayID.NotFound'],
  'route-table': ['InvalidRouteTableID.NotFound'],
  'security-group': ['InvalidGroup.NotFound', 'InvalidSecurityGroupID.NotFound'],
  instance: ['InvalidInstanceID.NotFound'],
};

/** How long a new id may stay unknown before kubemix gives up (AWS: usually seconds). */
export const UNKNOWN_ID_TIMEOUT_MS = 120_000;

/**
 * Runs `send`, a call naming ids kubemix created of the given kinds, again (bounded, with backoff)
 * while EC2 answers one of those kinds' NotFound; any other error is described at once. After the
 * bound it fails naming the call and the code (exit 1: the id is kubemix's own, not the spec's).
 */
export async function withOwnIds<T>(
  ctx: Ec2Context,
  doing: string,
  kinds: Ec2ResourceKind[],
  send: () => Promise<T>,
  timeoutMs = UNKNOWN_ID_TIMEOUT_MS,
): Promise<T> {
  const codes = kinds.flatMap((kind) => NOT_FOUND[kind] ?? []);
  return waitFor<T>(
    ctx,
    { what: `EC2 to know the new ${kinds.join(' and ')} (${doing})`, timeoutMs, intervalMs: 500 },
    async () => {
      try {
        return { done: await send() };
      } catch (error) {
        const code = awsErrorCode(error) ?? '';
        if (!codes.includes(code)) throw describeAwsError(doing, error);
        return { progress: code };
      }
    },
  );
}

/** Describes one resource by id (NotFound is thrown); undefined when EC2 lists nothing. */
async function describeOne(ctx: Ec2Context, kind: Ec2ResourceKind, id: string): Promise<string | undefined> {
  const ec2 = ctx.aws.ec2;
  switch (kind) {
    case 'vpc':
      return (await ec2.send(new DescribeVpcsCommand({ VpcIds: [id] }))).Vpcs?.[0]?.VpcId;
    case 'subnet':
      return (await ec2.send(new DescribeSubnetsCommand({ SubnetIds: [id] }))).Subnets?.[0]?.SubnetId;
    case 'internet-gateway':
      return (await ec2.send(new DescribeInternetGatewaysCommand({ InternetGatewayIds: [id] })))
        .InternetGateways?.[0]?.InternetGatewayId;
    case 'route-table':
      return (await ec2.send(new DescribeRouteTablesCommand({ RouteTableIds: [id] }))).RouteTables?.[0]
        ?.RouteTableId;
    case 'security-group':
      return (await ec2.send(new DescribeSecurityGroupsCommand({ GroupIds: [id] }))).SecurityGroups?.[0]
        ?.GroupId;
    default:
      return id;
  }
}

/**
 * Waits until a resource kubemix created (or recorded) is known to EC2 by its id, NotFound and an
 * empty list both meaning "not yet". True once it is; false when it stays unknown for `timeoutMs`
 * (a recorded id someone deleted since).
 */
export async function awaitExists(
  ctx: Ec2Context,
  kind: Ec2ResourceKind,
  id: string,
  timeoutMs = UNKNOWN_ID_TIMEOUT_MS,
): Promise<boolean> {
  const codes = NOT_FOUND[kind] ?? [];
  const started = ctx.clock.now();
  return waitFor<boolean>(
    ctx,
    { what: `EC2 to know ${kind} ${id}`, timeoutMs: timeoutMs + 60_000, intervalMs: 500 },
    async () => {
      try {
        if ((await describeOne(ctx, kind, id)) === id) return { done: true };
      } catch (error) {
        if (!codes.includes(awsErrorCode(error) ?? ''))
          throw describeAwsError(`looking up ${kind} ${id}`, error);
      }
      if (ctx.clock.now() - started >= timeoutMs) return { done: false };
      return { progress: 'not known yet' };
    },
  );
}
