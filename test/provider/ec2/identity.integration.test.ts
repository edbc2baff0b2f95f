import { CreateSecurityGroupCommand, CreateVpcCommand, EC2Client } from '@aws-sdk/client-ec2';
import { describe, expect, it } from 'vitest';
import { taggedWith } from '../../../fixtures/ec2-proxy/moto-data.js';
import { KubemixError } from '../../../src/errors/index.js';
import { ec2IamActions } from '../../../src/provider/ec2/iam-policy.js';
import { recordedIdentity } from '../../../src/provider/ec2/identity.js';
import { inspectCluster } from '../../../src/provider/ec2/inspect.js';
import { destroyTask, leakCheckTask, prepareProvider } from '../../../src/provider/ec2/lifecycle.js';
import { planEc2 } from '../../../src/provider/ec2/plan.js';
import { ec2Spec, upToHosts, useMoto } from './harness.js';

// Two clusters may share a name in one region (two people, two checkouts): kubemix tells them
// apart by the id each build records, never by the name.
const moto = useMoto();

// No Windows workers: moto's GetPasswordData is no password (the proxy's is; lifecycle tests use it).
const specOf = (name: string) => ec2Spec({ name, endpoint: moto.url, windowsWorkers: 0 });

async function build(cluster: string) {
  const ctx = await moto.context(cluster);
  const spec = specOf(cluster);
  await upToHosts(ctx, spec);
  return { ctx, spec };
}

describe('EC2 cluster identity', () => {
  it('tags everything it creates with the id recorded in the state', async () => {
    const { ctx } = await build('tagged');
    const identity = recordedIdentity(ctx.ledger.resources);
    expect(identity?.region).toBe('eu-west-1');
    const byName = await moto.tagged('tagged');
    expect(byName.filter((r) => r.startsWith('Instance '))).toHaveLength(2);
    expect(await taggedWith(moto.url, 'kubemix.io/cluster-id', identity!.clusterId)).toEqual(byName);
  });

  it('calls nothing the generated IAM policy leaves out (up, status, down)', async () => {
    const { ctx, spec } = await build('iam');
    await inspectCluster(ctx, planEc2(spec));
    await destroyTask(ctx, spec);
    await leakCheckTask(ctx);
    const prefix: Record<string, string> = { EC2: 'ec2', SSM: 'ssm', ServiceQuotas: 'servicequotas' };
    const called = Object.keys(ctx.aws.counts.commands).map((key) => {
      const [service, action] = key.split('.');
      return `${prefix[service!] ?? service}:${action}`;
    });
    expect(called).toContain('servicequotas:GetServiceQuota');
    expect(ec2IamActions()).toEqual(expect.arrayContaining(called));
  });

  it('refuses a second cluster of the same name at prepare-provider, and its down leaves the first alone', async () => {
    const first = await build('twin');
    const before = await moto.tagged('twin');
    const second = await moto.context('twin');
    const spec = specOf('twin');
    const refused = await prepareProvider(second, spec).then(
      () => undefined,
      (error: KubemixError) => error,
    );
    expect(refused).toBeInstanceOf(KubemixError);
    expect(refused?.exitCode).toBe(2);
    expect(refused?.message).toMatch(/^name: another cluster named twin exists in eu-west-1 \(/);
    expect(refused?.message).not.toContain('\n');
    expect(await moto.tagged('twin')).toEqual(before);
    // The refused build's down deletes nothing of the first one's.
    await destroyTask(second, spec);
    await leakCheckTask(second);
    expect(await moto.tagged('twin')).toEqual(before);
    await destroyTask(first.ctx, first.spec);
    await leakCheckTask(first.ctx);
    expect(await moto.tagged('twin')).toEqual([]);
  });

  it('a resumed up refuses a spec region other than the recorded one, and a build started before ids', async () => {
    const { ctx } = await build('moved');
    const moved = specOf('moved');
    if (moved.provider.type === 'ec2') moved.provider.region = 'us-east-1';
    const refusal = await prepareProvider(ctx, moved).then(
      () => undefined,
      (error: KubemixError) => error,
    );
    expect(refusal?.exitCode).toBe(2);
    expect(refusal?.message).toBe(
      'provider.region: moved was built in eu-west-1 (recorded in state.json); run kubemix down before building it in us-east-1',
    );
    // A state with resources but no identity: made before ids.
    const legacy = await moto.context('moved');
    await legacy.ledger.record({
      resources: ctx.ledger.resources.filter((r) => r.kind !== 'cluster'),
    });
    const old = await prepareProvider(legacy, specOf('moved')).then(
      () => undefined,
      (error: KubemixError) => error,
    );
    expect(old?.message).toBe(
      'name: moved was started by a kubemix that did not tag cluster ids; run kubemix down, then up',
    );
    await destroyTask(ctx, specOf('moved'));
  });

  it('down of a state written before cluster ids removes only what carries the name and no id', async () => {
    const ec2 = new EC2Client({ region: 'eu-west-1', endpoint: moto.url });
    const tags = (extra: { Key: string; Value: string }[]) => [
      { Key: 'kubemix.io/cluster', Value: 'old' },
      { Key: 'kubernetes.io/cluster/old', Value: 'owned' },
      ...extra,
    ];
    const legacy = await ec2.send(
      new CreateVpcCommand({
        CidrBlock: '10.0.0.0/16',
        TagSpecifications: [{ ResourceType: 'vpc', Tags: tags([{ Key: 'kubemix.io/role', Value: 'vpc' }]) }],
      }),
    );
    await ec2.send(
      new CreateSecurityGroupCommand({
        GroupName: 'kubemix-old',
        Description: 'kubemix cluster old',
        VpcId: legacy.Vpc?.VpcId,
        TagSpecifications: [{ ResourceType: 'security-group', Tags: tags([]) }],
      }),
    );
    const newer = await ec2.send(
      new CreateVpcCommand({
        CidrBlock: '10.1.0.0/16',
        TagSpecifications: [
          { ResourceType: 'vpc', Tags: tags([{ Key: 'kubemix.io/cluster-id', Value: 'another-build' }]) },
        ],
      }),
    );
    ec2.destroy();
    // No identity in the state: the build predates ids.
    const ctx = await moto.context('old');
    await destroyTask(ctx, specOf('old'));
    await leakCheckTask(ctx);
    expect(await moto.tagged('old')).toEqual([`VPC ${newer.Vpc?.VpcId}`]);
  });
});
