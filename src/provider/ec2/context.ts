import type { AwsClients } from './client.js';

/**
 * What kubemix records about one EC2 resource, in the shape of the provider seam's records
 * (state.json's `resources`): `intended` is written BEFORE the create call, `created` after it,
 * `deleted` once it is gone. `name` is the resource's role in the cluster (`vpc`, `subnet`,
 * `instance/<node>`...), `details.id` its AWS id once known.
 */
export interface Ec2Resource {
  provider: 'ec2';
  kind: Ec2ResourceKind;
  name: string;
  /** The region. */
  location: string;
  status: 'intended' | 'created' | 'deleted';
  details?: Record<string, string>;
}

/** Every kind of resource kubemix makes on EC2 (the leak check looks for each). */
export type Ec2ResourceKind =
  | 'vpc'
  | 'subnet'
  | 'internet-gateway'
  | 'route-table'
  | 'security-group'
  | 'key-pair'
  | 'launch'
  | 'instance';

/** A host's address and login, learned when its instance runs. */
export interface Ec2HostAssignment {
  name: string;
  address: string;
  vars: Record<string, unknown>;
}

/** An update of the records (the seam's ProvisionUpdate). */
export interface Ec2Update {
  resources?: Ec2Resource[];
  hosts?: Ec2HostAssignment[];
}

/** Where operations record resources: the seam's ProvisionLedger (state.json, written before `record` resolves). */
export interface Ec2Ledger {
  readonly resources: readonly {
    provider: string;
    kind: string;
    name: string;
    location: string;
    status: string;
    details?: Record<string, string>;
  }[];
  record(update: Ec2Update): Promise<void>;
}

/** What every EC2 operation works with. */
export interface Ec2Context {
  aws: AwsClients;
  cluster: string;
  ledger: Ec2Ledger;
  /** Progress lines for people (bounded waits say what they wait for). */
  progress: (message: string) => void;
  signal?: AbortSignal;
  /** Time source and pause, for bounded waits. */
  clock: { now(): number; sleep(ms: number, signal?: AbortSignal): Promise<void> };
}

/** The real clock. */
export const realClock: Ec2Context['clock'] = {
  now: () => Date.now(),
  sleep: (ms, signal) =>
    new Promise((resolve) => {
      const timer = setTimeout(resolve, ms);
      signal?.addEventListener(
        'abort',
        () => {
          clearTimeout(timer);
          resolve();
        },
        { once: true },
      );
    }),
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
