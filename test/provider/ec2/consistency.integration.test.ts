import { describe, expect, it } from 'vitest';
import { destroyTask, leakCheckTask } from '../../../src/provider/ec2/lifecycle.js';
import { upToHosts, useMoto } from './harness.js';

// EC2's manners that moto alone does not show: ids unknown for a while after their create, tag
// lookups that do not see new resources yet, instances that die at launch.
const moto = useMoto();

const failureOf = (work: Promise<unknown>) =>
  work.then(
    () => undefined,
    (error: Error & { exitCode?: number }) => error,
  );

describe('EC2 eventual consistency (moto behind the proxy)', () => {
  it('waits out NotFound for every id it just created, then builds and removes everything', async () => {
    const { ctx, spec, proxy } = await moto.clusterBehindProxy('unknown-ids', { notFoundAfterCreate: 2 });
    const created = await upToHosts(ctx, spec);
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
    expect(await moto.tagged('unknown-ids')).toEqual([]);
  });

  it('a resume whose tag lookups do not see the new VPC yet reuses the recorded one', async () => {
    const { ctx, spec, proxy } = await moto.clusterBehindProxy('lagging-tags', {
      failOnce: { CreateSubnet: 1 },
    });
    const failure = await failureOf(upToHosts(ctx, spec));
    expect(failure?.message).toContain('injected failure of CreateSubnet');
    // The resources made so far are missing from the next tag lookup of their kind.
    proxy.setFaults({ tagLag: 1 });
    await upToHosts(ctx, spec);
    expect(await moto.tagged('lagging-tags', 'VPC')).toHaveLength(1);
    expect(await moto.tagged('lagging-tags', 'Instance')).toHaveLength(3);
    // down while no tag lookup sees anything new yet: the recorded ids alone must take every
    // instance, route table association and gateway attachment down (bounded: the old teardown
    // retried the dependent deletes until its limit).
    proxy.setFaults({ tagLag: 1000 });
    await destroyTask(ctx, spec, 60_000);
    proxy.setFaults({});
    expect(await moto.tagged('lagging-tags')).toEqual([]);
  });
});

describe('EC2 instances that terminate at launch', () => {
  it('fails at once with the StateReason, and the next up launches afresh instead of getting the dead reservation back', async () => {
    const reason = {
      times: 1,
      code: 'Client.VolumeLimitExceeded',
      message: 'Client.VolumeLimitExceeded: Volume limit exceeded',
    };
    const { ctx, spec, proxy } = await moto.clusterBehindProxy('dies', { terminateAtLaunch: reason });
    // Bounded so the old behaviour (a timeout with no reason) ends this test too.
    const failure = await failureOf(upToHosts(ctx, spec, { instancesTimeoutMs: 30_000 }));
    expect(failure?.message).toMatch(
      /^create-hosts: .*controller-01.* terminated at launch: Client\.VolumeLimitExceeded: Volume limit exceeded/,
    );
    expect(failure?.message).not.toContain('\n');
    proxy.setFaults({});
    const created = await upToHosts(ctx, spec, { instancesTimeoutMs: 30_000 });
    expect(created.hosts.map((h) => h.name)).toEqual(['controller-01', 'linux-01', 'win-01']);
    expect(await moto.tagged('dies', 'Instance')).toHaveLength(3);
    await destroyTask(ctx, spec);
    await leakCheckTask(ctx);
  });
});
