import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { testClusterKey } from '../../../fixtures/ec2-proxy/cluster-key.js';
import { MOTO_ENV, type Moto, startMoto } from '../../../fixtures/ec2-proxy/moto.js';
import { taggedWithCluster } from '../../../fixtures/ec2-proxy/moto-data.js';
import { Ec2FaultProxy, type FaultPlan } from '../../../fixtures/ec2-proxy/proxy.js';
import {
  createHostsTask,
  createNetworkTask,
  destroyTask,
  leakCheckTask,
  prepareProvider,
} from '../../../src/provider/ec2/lifecycle.js';
import type { ClusterSpec } from '../../../src/spec/schema.js';
import { ec2Context, ec2Spec } from './harness.js';

Object.assign(process.env, MOTO_ENV);

// EC2's manners that moto alone does not show: ids unknown for a while after their create, tag
// lookups that do not see new resources yet, instances that die at launch.
let moto: Moto;
let proxy: Ec2FaultProxy | undefined;
const disposers: (() => Promise<void>)[] = [];

beforeAll(async () => {
  moto = await startMoto();
});
afterAll(async () => {
  await moto?.stop();
});
afterEach(async () => {
  for (const dispose of disposers.splice(0)) await dispose();
  await proxy?.stop();
  proxy = undefined;
  await moto.reset();
});

const key = await testClusterKey();

async function setup(cluster: string, faults: FaultPlan = {}) {
  proxy = new Ec2FaultProxy(moto.url, faults);
  const endpoint = await proxy.start();
  const ctx = await ec2Context({ cluster, endpoint });
  disposers.push(ctx.dispose);
  return { ctx, spec: ec2Spec({ name: cluster, endpoint }), proxy };
}

type Ctx = Awaited<ReturnType<typeof setup>>['ctx'];

async function up(ctx: Ctx, spec: ClusterSpec, instancesTimeoutMs?: number) {
  await prepareProvider(ctx, spec);
  await createNetworkTask(ctx, spec, key.publicKey);
  return createHostsTask(ctx, spec, {
    publicKey: key.publicKey,
    privateKeyPem: key.privateKeyPem,
    ...(instancesTimeoutMs === undefined ? {} : { instancesTimeoutMs }),
  });
}

const failureOf = (work: Promise<unknown>) =>
  work.then(
    () => undefined,
    (error: Error & { exitCode?: number }) => error,
  );
const left = (cluster: string) => taggedWithCluster(moto.url, cluster);
const ofKind = async (cluster: string, kind: string) =>
  (await left(cluster)).filter((r) => r.startsWith(`${kind} `));

describe('EC2 eventual consistency (moto behind the proxy)', () => {
  it('waits out NotFound for every id it just created, then builds and removes everything', async () => {
    const { ctx, spec, proxy } = await setup('unknown-ids', { notFoundAfterCreate: 2 });
    const created = await up(ctx, spec);
    expect(created.hosts).toHaveLength(3);
    const injected = new Set(proxy.calls.flatMap((c) => (c.injected ? [c.injected] : [])));
    for (const code of [
      'InvalidVpcID.NotFound',
      'InvalidSubnetID.NotFound',
      'InvalidInternetGatewayID.NotFound',
      'InvalidRouteTableID.NotFound',
      'InvalidGroup.NotFound',
    ])
      expect(injected, code).toContain(code);
    await destroyTask(ctx, spec);
    await leakCheckTask(ctx);
    expect(await left('unknown-ids')).toEqual([]);
  });

  it('a resume whose tag lookups do not see the new VPC yet reuses the recorded one', async () => {
    const { ctx, spec, proxy } = await setup('lagging-tags', { failOnce: { CreateSubnet: 1 } });
    const failure = await failureOf(up(ctx, spec));
    expect(failure?.message).toContain('injected failure of CreateSubnet');
    // The resources made so far are missing from the next tag lookup of their kind.
    proxy.setFaults({ tagLag: 1 });
    await up(ctx, spec);
    expect(await ofKind('lagging-tags', 'VPC')).toHaveLength(1);
    expect(await ofKind('lagging-tags', 'Instance')).toHaveLength(3);
    // down while no tag lookup sees anything new yet: the recorded ids alone must take every
    // instance, route table association and gateway attachment down (bounded: the old teardown
    // retried the dependent deletes until its limit).
    proxy.setFaults({ tagLag: 1000 });
    await destroyTask(ctx, spec, 60_000);
    proxy.setFaults({});
    expect(await left('lagging-tags')).toEqual([]);
  });
});

describe('EC2 instances that terminate at launch', () => {
  it('fails at once with the StateReason, and the next up launches afresh instead of getting the dead reservation back', async () => {
    const reason = {
      times: 1,
      code: 'Client.VolumeLimitExceeded',
      message: 'Client.VolumeLimitExceeded: Volume limit exceeded',
    };
    const { ctx, spec, proxy } = await setup('dies', { terminateAtLaunch: reason });
    // Bounded so the old behaviour (a timeout with no reason) ends this test too.
    const failure = await failureOf(up(ctx, spec, 30_000));
    expect(failure?.message).toMatch(
      /^create-hosts: .*controller-01.* terminated at launch: Client\.VolumeLimitExceeded: Volume limit exceeded/,
    );
    expect(failure?.message).not.toContain('\n');
    proxy.setFaults({});
    const created = await up(ctx, spec, 30_000);
    expect(created.hosts.map((h) => h.name)).toEqual(['controller-01', 'linux-01', 'win-01']);
    expect(await ofKind('dies', 'Instance')).toHaveLength(3);
    await destroyTask(ctx, spec);
    await leakCheckTask(ctx);
  });
});
