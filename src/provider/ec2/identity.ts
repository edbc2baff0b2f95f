import { randomUUID } from 'node:crypto';
import type { ProviderResource } from '../../types/provision.js';
import type { Ec2Context } from './context.js';
import { record } from './context.js';
import {
  CLUSTER_ID_TAG,
  CLUSTER_TAG,
  clusterNameFilter,
  clusterTags,
  ROLE_TAG,
  type Tag,
  tagValue,
} from './tags.js';

/**
 * A cluster's identity on EC2: an id made once by the first `up` and the region it was built
 * in, recorded in state.json (a resource record of kind `cluster`, name `identity`) before
 * anything is created. Names are for people and two clusters may share one; the id is what
 * kubemix adopts, lists and deletes by. `down`, `status` and the leak check use the recorded
 * region, whatever the shell's AWS_REGION says.
 */
export interface ClusterIdentity {
  clusterId: string;
  region: string;
}

/** The state record holding the identity. */
export const IDENTITY = { kind: 'cluster', name: 'identity' } as const;

/** The recorded identity, unless the cluster was torn down (or built before identities existed). */
export function recordedIdentity(resources: readonly ProviderResource[]): ClusterIdentity | undefined {
  const found = resources.find(
    (r) =>
      r.provider === 'ec2' && r.kind === IDENTITY.kind && r.name === IDENTITY.name && r.status !== 'deleted',
  );
  const clusterId = found?.details?.['clusterId'];
  return found && clusterId ? { clusterId, region: found.location } : undefined;
}

/** Just what ownership needs of a context (the tests' read-only ones too). */
type Owner = Pick<Ec2Context, 'cluster' | 'ledger'>;

/** The cluster id this context acts for; undefined for a state written before identities (legacy). */
export const clusterIdOf = (ctx: Owner): string | undefined =>
  recordedIdentity(ctx.ledger.resources)?.clusterId;

/**
 * The identity of this build: the recorded one, or a new id recorded now (in the context's
 * region) before anything is created. Called by prepare-provider.
 */
export async function ensureIdentity(ctx: Ec2Context): Promise<ClusterIdentity> {
  const known = recordedIdentity(ctx.ledger.resources);
  if (known) return known;
  const clusterId = randomUUID();
  await record(ctx, 'cluster', IDENTITY.name, 'created', { clusterId });
  return { clusterId, region: ctx.aws.region };
}

/** Marks the identity gone (the end of a clean `down`): the next `up` makes a new one. */
export async function forgetIdentity(ctx: Ec2Context): Promise<void> {
  const known = recordedIdentity(ctx.ledger.resources);
  if (known) await record(ctx, 'cluster', IDENTITY.name, 'deleted', { clusterId: known.clusterId });
}

/** The tags of a resource of this cluster: name, id, ownership, role and `Name`. */
export function ownTags(ctx: Owner, role: string, name?: string): Tag[] {
  const id = clusterIdOf(ctx);
  const tags = clusterTags(ctx.cluster, role, name);
  return id ? [...tags, { Key: CLUSTER_ID_TAG, Value: id }] : tags;
}

/**
 * The Describe* filter that finds this cluster's resources: by id; for a legacy state (no id
 * recorded) by name, narrowed by {@link isOurs} to resources that carry no id at all.
 */
export const ownerFilter = (ctx: Owner) => {
  const id = clusterIdOf(ctx);
  return id ? { Name: `tag:${CLUSTER_ID_TAG}`, Values: [id] } : clusterNameFilter(ctx.cluster);
};

/** Filters for the resources of this cluster with a role (how a resumed run finds them). */
export const roleFilters = (ctx: Owner, role: string) => [
  ownerFilter(ctx),
  { Name: `tag:${ROLE_TAG}`, Values: [role] },
];

type Tags = readonly { Key?: string; Value?: string }[] | undefined;

/**
 * True for a resource of this cluster: it carries our id; for a legacy state, our name and no
 * id (a cluster built since carries one, and belongs to whoever recorded it).
 */
export function isOurs(ctx: Owner, tags: Tags): boolean {
  const id = clusterIdOf(ctx);
  if (id) return tagValue(tags, CLUSTER_ID_TAG) === id;
  return tagValue(tags, CLUSTER_TAG) === ctx.cluster && tagValue(tags, CLUSTER_ID_TAG) === undefined;
}
