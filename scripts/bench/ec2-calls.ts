import { testClusterKey } from '../../fixtures/ec2-proxy/cluster-key.js';
import { MemoryLedger } from '../../fixtures/ec2-proxy/memory-ledger.js';
import { MOTO_ENV, startMoto } from '../../fixtures/ec2-proxy/moto.js';
import { AwsClients } from '../../src/provider/ec2/client.js';
import { type Ec2Context, realClock } from '../../src/provider/ec2/context.js';
import {
  createHostsTask,
  createNetworkTask,
  destroyTask,
  leakCheckTask,
  prepareProvider,
  windowsPasswordsTask,
} from '../../src/provider/ec2/lifecycle.js';
import { parseSpecText } from '../../src/spec/parse.js';

/** API calls and wall time of one EC2 phase. */
export interface PhaseCost {
  wallMs: number;
  commands: number;
  attempts: number;
  /** Commands by `Service.Operation`. */
  byOperation: Record<string, number>;
}

/**
 * The EC2 provider's cost for `instances` Linux instances (1 controller + workers) against moto
 * on loopback: each phase's API commands (and HTTP attempts) and wall time, create to destroy.
 * Creating N instances should cost a bounded number of calls: one RunInstances per group and
 * Describe* polling with filters, never a call per instance.
 */
export async function ec2CallsBench(instances: number): Promise<Record<string, PhaseCost>> {
  Object.assign(process.env, MOTO_ENV);
  const moto = await startMoto();
  const key = await testClusterKey();
  const spec = parseSpecText(
    [
      'name: bench',
      'provider:',
      '  type: ec2',
      '  region: eu-west-1',
      '  operatorCidr: 127.0.0.0/8',
      `  endpoint: ${moto.url}`,
      '  images: { linux: ami-04681a1dbd79675a5 }',
      'nodes:',
      instances > 1 ? `  workers: [{ name: linux, os: linux, count: ${instances - 1} }]` : '  workers: []',
    ].join('\n'),
    'bench.yaml',
  );
  const ledger = new MemoryLedger();
  const phases: Record<string, PhaseCost> = {};
  try {
    const phase = async (name: string, work: (ctx: Ec2Context) => Promise<unknown>) => {
      const aws = await AwsClients.create({ region: 'eu-west-1', endpoint: moto.url });
      const ctx: Ec2Context = { aws, cluster: 'bench', ledger, progress: () => undefined, clock: realClock };
      const started = performance.now();
      await work(ctx);
      const wallMs = performance.now() - started;
      phases[name] = { wallMs, ...aws.totals(), byOperation: { ...aws.counts.commands } };
      aws.destroy();
    };
    await phase('prepare-provider', (ctx) => prepareProvider(ctx, spec));
    await phase('create-network', (ctx) => createNetworkTask(ctx, spec, key.publicKey));
    await phase('create-hosts', async (ctx) => {
      await createHostsTask(ctx, spec, key);
      await windowsPasswordsTask(ctx, spec, key);
    });
    await phase('destroy', (ctx) => destroyTask(ctx, spec));
    await phase('leak-check', (ctx) => leakCheckTask(ctx));
  } finally {
    await moto.stop();
  }
  return phases;
}
