import { DescribeInstancesCommand } from '@aws-sdk/client-ec2';
import { awsErrorCode, describeAwsError, isNotFound } from './client.js';
import type { Ec2Context, Ec2ResourceKind } from './context.js';
import { isOurs } from './identity.js';
import { LIVE_STATES } from './instances.js';
import { kubernetesClusterTag, tagValue } from './tags.js';
import { waitFor } from './wait.js';

// The pieces every teardown stage (teardown.ts) uses: which resources are ours, what the state
// recorded, and deleting through EC2's DependencyViolation window.

type Tagged = { Tags?: { Key?: string; Value?: string }[] };

/**
 * Ours to delete: the cluster's id (identity.ts) AND Kubernetes' `owned` (a `shared` resource is
 * never deleted).
 */
export const owned = (ctx: Ec2Context, resource: Tagged) =>
  isOurs(ctx, resource.Tags) && tagValue(resource.Tags, kubernetesClusterTag(ctx.cluster)) === 'owned';

/** Recorded ids of a kind that may still exist. */
export function recordedIds(ctx: Ec2Context, kind: Ec2ResourceKind, detail = 'id'): string[] {
  return ctx.ledger.resources
    .filter(
      (r) =>
        r.provider === 'ec2' && r.kind === kind && r.location === ctx.aws.region && r.status !== 'deleted',
    )
    .flatMap((r) => (r.details?.[detail] ? [r.details[detail]] : []));
}

/** Marks every record of a kind deleted. */
export async function recordDeleted(ctx: Ec2Context, kind: Ec2ResourceKind): Promise<void> {
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
export async function deleteWithRetry(
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
 * Recorded resources a tag lookup may still miss (EC2's tag filters lag a new resource: EC2 API
 * Reference, "Eventual consistency in the Amazon EC2 API"), described by id. An id EC2 no longer
 * knows is gone; one unknown id fails a Describe of several, so those are asked one by one.
 */
export async function describeByIds<T>(
  ids: string[],
  describe: (ids: string[]) => Promise<T[]>,
): Promise<T[]> {
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
export const liveInstancesByIds = (ctx: Ec2Context, ids: string[]) =>
  describeByIds(ids, async (InstanceIds) =>
    ((await ctx.aws.ec2.send(new DescribeInstancesCommand({ InstanceIds }))).Reservations ?? [])
      .flatMap((r) => r.Instances ?? [])
      .filter((i) => LIVE_STATES.includes(i.State?.Name ?? '')),
  );

/** The instance ids the state holds: each node's, and each launch's (recorded before its instances ran). */
export function recordedInstanceIds(ctx: Ec2Context): string[] {
  const launched = recordedIds(ctx, 'launch', 'instances').flatMap((list) => list.split(','));
  return union(recordedIds(ctx, 'instance'), launched);
}

/** Found by tag and described by id, each resource once. */
export const byId = <T>(found: T[], described: T[], id: (resource: T) => string | undefined): T[] => [
  ...new Map([...found, ...described].map((r) => [id(r), r])).values(),
];

/** Ids found by tag and ids recorded, each once, without the empty ones. */
export const union = (found: (string | undefined)[], recorded: string[]): string[] =>
  [...new Set([...found, ...recorded])].filter((id): id is string => id !== undefined && id !== '');
