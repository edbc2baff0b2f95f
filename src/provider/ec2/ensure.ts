import type { ResourceType } from '@aws-sdk/client-ec2';
import { KubemixError } from '../../errors/index.js';
import { awsErrorCode, describeAwsError } from './client.js';
import { awaitExists } from './consistency.js';
import { type Ec2Context, type Ec2ResourceKind, record, recorded } from './context.js';
import { ownTags } from './identity.js';
import { waitFor } from './wait.js';

/** The TagSpecifications of a create call: the cluster's own tags with the resource's role. */
export const tagSpec = (ctx: Ec2Context, type: ResourceType, role: string) => [
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
export async function ensure(
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
export async function idempotent(codes: string[], send: () => Promise<unknown>): Promise<void> {
  try {
    await send();
  } catch (error) {
    if (!codes.includes(awsErrorCode(error) ?? '')) throw error;
  }
}
