import { createHash } from 'node:crypto';

/** The tag every resource kubemix creates on EC2 carries: its value is the cluster name (for people). */
export const CLUSTER_TAG = 'kubemix.io/cluster';

/**
 * The cluster's id (made once per build, kept in state.json: see identity.ts): what kubemix
 * adopts and deletes by, since two clusters may share a name in one region.
 */
export const CLUSTER_ID_TAG = 'kubemix.io/cluster-id';

/**
 * Kubernetes' ownership tag (cloud-provider-aws): `owned` means the resource dies with the
 * cluster; `shared` resources are never deleted. kubemix only ever deletes what it marked owned.
 */
export const kubernetesClusterTag = (cluster: string): string => `kubernetes.io/cluster/${cluster}`;

/** One EC2 tag. */
export interface Tag {
  Key: string;
  Value: string;
}

/** The resource's role in the cluster (`vpc`, `subnet`, `launch/<group>`...): how a resumed run finds it. */
export const ROLE_TAG = 'kubemix.io/role';

/** The name tags of one resource: the cluster tag, Kubernetes' `owned` tag, its role and a `Name` (identity.ts adds the id). */
export function clusterTags(cluster: string, role: string, name = `kubemix-${cluster}`): Tag[] {
  return [
    { Key: CLUSTER_TAG, Value: cluster },
    { Key: kubernetesClusterTag(cluster), Value: 'owned' },
    { Key: ROLE_TAG, Value: role },
    { Key: 'Name', Value: name },
  ];
}

/** The Describe* filter that finds everything carrying a cluster name, whatever its kind or id. */
export const clusterNameFilter = (cluster: string) => ({ Name: `tag:${CLUSTER_TAG}`, Values: [cluster] });

/**
 * RunInstances' idempotency token of one group in one build: a retried or resumed create with
 * the same token returns the instances the first call made instead of making more. The build id
 * (recorded in the state before the first call) keeps a new `up` after `down` from getting the
 * terminated instances back. At most 64 ASCII characters (EC2's limit).
 */
export function clientToken(cluster: string, group: string, buildId: string): string {
  const digest = createHash('sha256').update(`${cluster}\n${group}\n${buildId}`).digest('hex');
  return `kubemix-${digest.slice(0, 40)}`;
}

/** The value of a tag in a described resource, if present. */
export function tagValue(tags: readonly { Key?: string; Value?: string }[] | undefined, key: string) {
  return tags?.find((t) => t.Key === key)?.Value;
}
