import type { Ec2Context } from './context.js';
import { ensureIdentity, recordedIdentity } from './identity.js';
import { sameNameOthers } from './leak-check.js';
import type { Ec2Plan } from './plan.js';

/**
 * prepare-provider's ownership checks, before anything is created: a spec region that differs
 * from the one the build was recorded in, and anything of the cluster's name in the region that
 * is not this build's (another cluster of that name: adopting it would let one `down` delete
 * the other's machines). Records the build's identity (identity.ts) first. One line per problem.
 */
export async function identityProblems(ctx: Ec2Context, plan: Ec2Plan): Promise<string[]> {
  const known = recordedIdentity(ctx.ledger.resources);
  if (known && plan.region !== undefined && plan.region !== known.region)
    return [
      `provider.region: ${plan.cluster} was built in ${known.region} (recorded in state.json); run kubemix down before building it in ${plan.region}`,
    ];
  // Resources recorded without an identity come from a kubemix before ids (it is recorded first
  // now): they carry no id, so this build could never adopt them.
  if (!known && ctx.ledger.resources.some((r) => r.provider === 'ec2' && r.status !== 'deleted'))
    return [
      `name: ${plan.cluster} was started by a kubemix that did not tag cluster ids; run kubemix down, then up`,
    ];
  await ensureIdentity(ctx);
  const others = await sameNameOthers(ctx);
  if (others.length === 0) return [];
  const shown = others.slice(0, 3).map((r) => `${r.kind} ${r.id}`);
  const more = others.length > shown.length ? ` and ${others.length - shown.length} more` : '';
  return [
    `name: another cluster named ${plan.cluster} exists in ${ctx.aws.region} (${shown.join(', ')}${more} carry the name but not this build's kubemix.io/cluster-id); choose another name, or run kubemix down from that cluster's directory`,
  ];
}
