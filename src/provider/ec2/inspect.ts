import { describeAwsError } from './client.js';
import type { Ec2Context } from './context.js';
import { IDENTITY, recordedIdentity } from './identity.js';
import { clusterInstances } from './instances.js';
import { listTagged } from './leak-check.js';
import type { Ec2Plan } from './plan.js';
import { ROLE_TAG, tagValue } from './tags.js';

/** Something of the cluster found on EC2, named as the state records it (kind + name). */
export interface FoundResource {
  kind: string;
  name: string;
  /** EC2's id for it (vpc-..., i-...), so `status` names what the console shows. */
  id?: string;
}

// Network resources are recorded under their role (kind = name = role).
const NETWORK_ROLES = new Set([
  'vpc',
  'subnet',
  'internet-gateway',
  'route-table',
  'security-group',
  'key-pair',
]);

/**
 * What of the cluster exists on EC2 now, found by its tags (read only, for `kubemix status`):
 * the network resources by their role tag, each live instance as its node (group and launch
 * index) and its group's launch.
 */
export async function inspectCluster(ctx: Ec2Context, plan: Ec2Plan): Promise<FoundResource[]> {
  try {
    const found: FoundResource[] = (await listTagged(ctx))
      .filter((r) => r.role !== undefined && NETWORK_ROLES.has(r.role))
      .map((r) => ({ kind: r.role!, name: r.role!, id: r.id }));
    for (const instance of await clusterInstances(ctx)) {
      const group = plan.groups.find((g) => tagValue(instance.Tags, ROLE_TAG) === `launch/${g.group}`);
      const node = group?.nodes[instance.AmiLaunchIndex ?? -1];
      if (node)
        found.push({
          kind: 'instance',
          name: node,
          ...(instance.InstanceId ? { id: instance.InstanceId } : {}),
        });
      if (group && !found.some((f) => f.kind === 'launch' && f.name === group.group))
        found.push({ kind: 'launch', name: group.group });
    }
    // The recorded identity "exists" while anything carrying its id does.
    if (found.length > 0 && recordedIdentity(ctx.ledger.resources)) found.push({ ...IDENTITY });
    return found;
  } catch (error) {
    throw describeAwsError('status: listing the cluster on EC2', error);
  }
}
