import { abortableSleep } from '../../timing/abortable-sleep.js';
import type { HostAssignment, ProviderResource, ProvisionLedger } from '../../types/provision.js';
import type { AwsClients } from './client.js';

/** Every kind of resource kubemix makes on EC2 (the leak check looks for each). */
export type Ec2ResourceKind =
  /** The cluster's identity (id and region; identity.ts), recorded before anything is created. */
  | 'cluster'
  | 'vpc'
  | 'subnet'
  | 'internet-gateway'
  | 'route-table'
  | 'security-group'
  | 'key-pair'
  | 'launch'
  | 'instance';

/**
 * An EC2 resource record (the provider seam's, state.json's `resources`): `name` is the resource's
 * role in the cluster (`vpc`, `subnet`, `control-plane` for a launch, a node for an instance),
 * `location` the region, `details.id` its AWS id once known. `intended` is written BEFORE the
 * create call, `created` after it, `deleted` once it is gone.
 */
export type Ec2Resource = ProviderResource & { provider: 'ec2'; kind: Ec2ResourceKind };

/** A host's connect address, node (private) address and vars, learned when its instance runs. */
export type Ec2HostAssignment = HostAssignment & {
  address: string;
  nodeAddress: string;
  vars: Record<string, unknown>;
};

/** What every EC2 operation works with. */
export interface Ec2Context {
  aws: AwsClients;
  cluster: string;
  /** The run's ledger (state.json): records are on disk when `record` resolves. */
  ledger: ProvisionLedger;
  /** Progress lines for people (bounded waits say what they wait for). */
  progress: (message: string) => void;
  signal?: AbortSignal;
  /** Time source and pause, for bounded waits. */
  clock: { now(): number; sleep(ms: number, signal?: AbortSignal): Promise<void> };
}

/** The real clock. */
export const realClock: Ec2Context['clock'] = {
  now: () => Date.now(),
  sleep: abortableSleep,
};

/** The recorded resource of a kind and name in this region, if any. */
export function recorded(ctx: Ec2Context, kind: Ec2ResourceKind, name: string): Ec2Resource | undefined {
  const found = ctx.ledger.resources.find(
    (r) => r.provider === 'ec2' && r.kind === kind && r.name === name && r.location === ctx.aws.region,
  );
  return found as Ec2Resource | undefined;
}

/** Records one resource (and waits until the record is on disk). */
export async function record(
  ctx: Ec2Context,
  kind: Ec2ResourceKind,
  name: string,
  status: Ec2Resource['status'],
  details?: Record<string, string>,
): Promise<void> {
  const resource: Ec2Resource = { provider: 'ec2', kind, name, location: ctx.aws.region, status };
  if (details) resource.details = details;
  await ctx.ledger.record({ resources: [resource] });
}
