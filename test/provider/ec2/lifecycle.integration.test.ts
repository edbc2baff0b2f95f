import {
  DescribeInstanceAttributeCommand,
  DescribeKeyPairsCommand,
  DescribeSecurityGroupsCommand,
} from '@aws-sdk/client-ec2';
import { describe, expect, it } from 'vitest';
import { destroyTask, leakCheckTask, windowsPasswordsTask } from '../../../src/provider/ec2/lifecycle.js';
import type { ClusterSpec } from '../../../src/spec/schema.js';
import { type Ec2TestContext, MemoryLedger, testKey, upToHosts, useMoto } from './harness.js';

const moto = useMoto();
const key = await testKey();

/** create-hosts as `up` reaches it, then the Windows passwords. */
async function up(ctx: Ec2TestContext, spec: ClusterSpec) {
  const created = await upToHosts(ctx, spec);
  return {
    ...created,
    passwords: await windowsPasswordsTask(ctx, spec, { privateKeyPem: key.privateKeyPem }),
  };
}

describe('EC2 provider against moto', () => {
  it('creates the network, the instances with their user data and passwords, then removes all of it', async () => {
    const { ctx, spec, proxy } = await moto.clusterBehindProxy('life');
    const created = await up(ctx, spec);

    expect(created.hosts.map((h) => h.name)).toEqual(['controller-01', 'linux-01', 'win-01']);
    for (const host of created.hosts) expect(host.vars['ec2_private_ip']).toMatch(/^10\.0\.0\.\d+$/);
    expect(new Set(created.hosts.map((h) => h.address)).size).toBe(3);
    // The password EC2 (the proxy, for moto) encrypted with the imported key, decrypted by kubemix.
    const winId = String(created.hosts.find((h) => h.name === 'win-01')?.vars['ec2_instance_id']);
    expect(created.passwords.get('win-01')).toBe(proxy.windowsPasswords.get(winId));
    expect(await moto.tagged('life', 'Instance')).toHaveLength(3);

    const ec2 = ctx.aws.ec2;
    const [group] =
      (
        await ec2.send(
          new DescribeSecurityGroupsCommand({
            Filters: [{ Name: 'tag:kubemix.io/cluster', Values: ['life'] }],
          }),
        )
      ).SecurityGroups ?? [];
    const rules = (group?.IpPermissions ?? []).map((p) => ({
      port: p.FromPort,
      cidrs: (p.IpRanges ?? []).map((r) => r.CidrIp),
      self: (p.UserIdGroupPairs ?? []).map((g) => g.GroupId),
    }));
    expect(rules).toEqual(
      expect.arrayContaining([
        { port: 6443, cidrs: ['127.0.0.0/8'], self: [] },
        { port: 22, cidrs: ['127.0.0.0/8'], self: [] },
        { port: 5985, cidrs: ['127.0.0.0/8'], self: [] },
        expect.objectContaining({ self: [group?.GroupId] }),
      ]),
    );
    expect(rules.flatMap((r) => r.cidrs)).not.toContain('0.0.0.0/0');
    const [pair] =
      (await ec2.send(new DescribeKeyPairsCommand({ KeyNames: ['kubemix-life'] }))).KeyPairs ?? [];
    expect(pair?.Tags).toEqual(
      expect.arrayContaining([{ Key: 'kubernetes.io/cluster/life', Value: 'owned' }]),
    );
    const linuxId = String(created.hosts.find((h) => h.name === 'linux-01')?.vars['ec2_instance_id']);
    const userData = await ec2.send(
      new DescribeInstanceAttributeCommand({ InstanceId: linuxId, Attribute: 'userData' }),
    );
    const cloudConfig = Buffer.from(userData.UserData?.Value ?? '', 'base64').toString();
    expect(cloudConfig).toMatch(/^#cloud-config\n/);
    expect(cloudConfig).toContain(key.publicKey.split(' ')[1]);

    await destroyTask(ctx, spec);
    await leakCheckTask(ctx);
    expect(await moto.tagged('life')).toEqual([]);
    expect(ctx.ledger.resources.filter((r) => r.status !== 'deleted')).toEqual([]);
  });

  it('survives throttling, instances unknown right after launch, pending passwords and DependencyViolation', async () => {
    const { ctx, spec, proxy } = await moto.clusterBehindProxy('rough', {
      throttleEvery: 5,
      notFoundAfterCreate: 2,
      passwordPending: 2,
      dependencyViolations: 3,
    });
    const created = await up(ctx, spec);
    expect(created.passwords.size).toBe(1);
    expect(await moto.tagged('rough', 'Instance')).toHaveLength(3);
    await destroyTask(ctx, spec);
    await leakCheckTask(ctx);
    expect(await moto.tagged('rough')).toEqual([]);
    const injected = proxy.calls.filter((c) => c.injected).map((c) => c.injected);
    expect(injected).toContain('RequestLimitExceeded');
    expect(injected).toContain('InvalidInstanceID.NotFound');
    expect(injected).toContain('DependencyViolation');
    // Adaptive retry counted more attempts than commands.
    const totals = ctx.aws.totals();
    expect(totals.attempts).toBeGreaterThan(totals.commands);
  });

  it('launches once when the RunInstances answer is lost and the SDK retries (client token)', async () => {
    const { ctx, spec, proxy } = await moto.clusterBehindProxy('lost', { loseAnswer: { RunInstances: 1 } });
    await up(ctx, spec);
    expect(
      proxy.calls.filter((c) => c.action === 'RunInstances' && c.injected === 'answer lost'),
    ).toHaveLength(1);
    expect(await moto.tagged('lost', 'Instance')).toHaveLength(3);
    await destroyTask(ctx, spec);
    expect(await moto.tagged('lost')).toEqual([]);
  });

  const createSteps = [
    'CreateVpc',
    'CreateSubnet',
    'CreateInternetGateway',
    'AttachInternetGateway',
    'CreateRouteTable',
    'CreateRoute',
    'AssociateRouteTable',
    'CreateSecurityGroup',
    'AuthorizeSecurityGroupIngress',
    'ImportKeyPair',
    'RunInstances',
  ];
  it.each(createSteps)(
    'fails at %s with one line, resumes without duplicates, and down leaves nothing',
    async (step) => {
      const cluster = `fail-${step.toLowerCase()}`;
      // RunInstances fails for the second group: the first group's instances exist when it does.
      const { ctx, spec, proxy } = await moto.clusterBehindProxy(cluster);
      if (step === 'RunInstances') {
        let launches = 0;
        proxy.onAction = (action) => {
          if (action === 'RunInstances' && ++launches === 1)
            proxy.setFaults({ failOnce: { RunInstances: 1 } });
        };
      } else proxy.setFaults({ failOnce: { [step]: 1 } });
      const failure = await up(ctx, spec).then(
        () => undefined,
        (error: Error) => error,
      );
      expect(failure?.message).toContain(`injected failure of ${step}`);
      expect(failure?.message).not.toContain('\n');
      proxy.onAction = undefined;
      await up(ctx, spec);
      expect(await moto.tagged(cluster, 'Instance')).toHaveLength(3);
      await destroyTask(ctx, spec);
      await leakCheckTask(ctx);
      expect(await moto.tagged(cluster)).toEqual([]);
    },
  );

  it('destroys from the tags alone when the state records only the identity (a crash before the first resource record)', async () => {
    const { ctx, spec, endpoint } = await moto.clusterBehindProxy('amnesia');
    await up(ctx, spec);
    // prepare-provider records the identity before anything is created: it is all a crash keeps.
    const ledger = new MemoryLedger();
    await ledger.record({ resources: ctx.ledger.resources.filter((r) => r.kind === 'cluster') });
    const fresh = await moto.context('amnesia', { endpoint, ledger });
    await destroyTask(fresh, spec);
    await leakCheckTask(fresh);
    expect(await moto.tagged('amnesia')).toEqual([]);
  });

  it('leaves resources of other clusters alone and reports leftovers by name', async () => {
    const { ctx, spec, endpoint } = await moto.clusterBehindProxy('mine');
    await up(ctx, spec);
    const other = await moto.context('theirs', { endpoint });
    await expect(leakCheckTask(other)).resolves.toBeUndefined();
    await destroyTask(other, spec);
    expect(await moto.tagged('mine', 'Instance')).toHaveLength(3);
    await expect(leakCheckTask(ctx)).rejects.toThrow(
      /leak check: \d+ resource\(s\) of mine remain in eu-west-1: .*instance i-/,
    );
    await destroyTask(ctx, spec);
    expect(await moto.tagged('mine')).toEqual([]);
  });
});
