import { readFile } from 'node:fs/promises';
import { KubemixError } from '../../../errors/index.js';
import { type RawArgs, rejectUnknown, requireString } from '../../../modules/args.js';
import type { CallIo, ModuleAction } from '../../../modules/types.js';
import type { ClusterSpec } from '../../../spec/schema.js';
import type { ModuleOutcome } from '../../../types/module-outcome.js';
import type { ProvisionLedger } from '../../../types/provision.js';
import type { AwsClients } from '../client.js';
import { type Ec2Context, realClock } from '../context.js';

/** Arguments every EC2 module takes (the planner writes them; see provider/ec2/ec2-provider.ts). */
export interface Ec2Args {
  /** The validated spec (its provider is ec2). */
  spec: ClusterSpec;
  /** The cluster's RSA private key file (the public key is beside it, `.pub`). */
  keyFile: string;
}

const READ_ONLY_LEDGER: ProvisionLedger = {
  resources: [],
  record: () => Promise.reject(new Error('a read-only EC2 step tried to record a resource')),
};

/** Parses the common arguments; rejects unknown ones (but the module's own `extra` ones). */
export function parseEc2Args(module: string, raw: RawArgs, extra: string[] = []): Ec2Args {
  rejectUnknown(module, raw, ['spec', 'keyFile', ...extra]);
  const spec = raw['spec'] as ClusterSpec | undefined;
  if (!spec || typeof spec !== 'object' || spec.provider?.type !== 'ec2')
    throw new TypeError(`${module}: spec must be the cluster spec of an ec2 cluster`);
  return { spec, keyFile: requireString(module, raw, 'keyFile') };
}

/** A mapping argument (`known`, `certificates`: outputs rendered from secrets.json); absent is empty. */
export function mappingArg(module: string, raw: RawArgs, name: string): Record<string, unknown> {
  const value = raw[name] ?? {};
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new TypeError(`${module}: ${name} must be a mapping of group name to certificate`);
  return value as Record<string, unknown>;
}

/** Reads the cluster key pair (made by `up` before the run; 0600). */
export async function readClusterKey(keyFile: string): Promise<{ privateKeyPem: string; publicKey: string }> {
  try {
    return {
      privateKeyPem: await readFile(keyFile, 'utf8'),
      publicKey: (await readFile(`${keyFile}.pub`, 'utf8')).trim(),
    };
  } catch (error) {
    throw new KubemixError(
      `cannot read the cluster key ${keyFile}: ${(error as NodeJS.ErrnoException).code}`,
    );
  }
}

/**
 * A `call` action that runs `work` with an EC2 context (the recorded region, else the spec's or
 * the SDK's; the spec's endpoint; the run's
 * ledger, progress as the step's output) and turns its result into the module's outcome. The
 * caller returns `outcome()` after yielding the action.
 */
export function ec2Call(
  what: string,
  args: Ec2Args,
  work: (ctx: Ec2Context) => Promise<Omit<ModuleOutcome, 'failed'>>,
  options: { readOnly?: boolean } = {},
): { action: ModuleAction; outcome: () => ModuleOutcome } {
  let outcome: ModuleOutcome = { changed: false, failed: true, msg: `${what}: did not run` };
  const run = async (io: CallIo) => {
    const provider = args.spec.provider;
    if (provider.type !== 'ec2') throw new TypeError('not an ec2 spec');
    // Read-only work (status) records nothing and runs outside a run's state too.
    const ledger = io.ledger ?? (options.readOnly ? READ_ONLY_LEDGER : undefined);
    if (!ledger) {
      outcome = { changed: false, failed: true, msg: `${what}: runs only inside kubemix up and down` };
      return;
    }
    let aws: AwsClients | undefined;
    try {
      // The AWS SDK loads only when an EC2 step runs, not with every kubemix command.
      const { AwsClients } = await import('../client.js');
      const { recordedIdentity } = await import('../identity.js');
      // A built cluster lives where it was recorded, whatever the spec or AWS_REGION say now:
      // `down` after a region switch in the shell still finds it (prepare-provider refuses a spec
      // region that differs).
      const region = recordedIdentity(ledger.resources)?.region ?? provider.region;
      aws = await AwsClients.create({ region, endpoint: provider.endpoint });
      const ctx: Ec2Context = {
        aws,
        cluster: args.spec.name,
        ledger,
        progress: io.progress,
        clock: realClock,
        ...(io.signal ? { signal: io.signal } : {}),
      };
      outcome = { ...(await work(ctx)), failed: false };
    } catch (error) {
      const input = error instanceof KubemixError && error.exitCode === 2;
      outcome = {
        changed: false,
        failed: true,
        msg: (error as Error).message,
        ...(input ? { inputError: true } : {}),
      };
    } finally {
      aws?.destroy();
    }
  };
  return { action: { kind: 'call', what, run }, outcome: () => outcome };
}
