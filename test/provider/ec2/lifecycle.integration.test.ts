import {
  DescribeInstanceAttributeCommand,
  DescribeKeyPairsCommand,
  DescribeSecurityGroupsCommand,
} from '@aws-sdk/client-ec2';
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
  windowsPasswordsTask,
} from '../../../src/provider/ec2/lifecycle.js';
import { ec2Context, ec2Spec, MemoryLedger } from './harness.js';

Object.assign(process.env, MOTO_ENV);

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

async function setup(
  cluster: string,
  faults: FaultPlan = {},
  spec: { linux?: number; windows?: number } = {},
) {
  proxy = new Ec2FaultProxy(moto.url, faults);
  const endpoint = await proxy.start();
  const ctx = await ec2Context({ cluster, endpoint });
  disposers.push(ctx.dispose);
  const clusterSpec = ec2Spec({
    name: cluster,
    endpoint,
    ...(spec.linux === undefined ? {} : { linuxWorkers: spec.linux }),
    ...(spec.windows === undefined ? {} : { windowsWorkers: spec.windows }),
  });
  return { ctx, spec: clusterSpec, proxy };
}

async function up(
  ctx: Awaited<ReturnType<typeof setup>>['ctx'],
  spec: Awaited<ReturnType<typeof setup>>['spec'],
) {
  await prepareProvider(ctx, spec);
  await createNetworkTask(ctx, spec, key.publicKey);
  const created = await createHostsTask(ctx, spec, {
    publicKey: key.publicKey,
    privateKeyPem: key.privateKeyPem,
  });
  return {
    ...created,
    passwords: await windowsPasswordsTask(ctx, spec, { privateKeyPem: key.privateKeyPem }),
  };
}

const left = (cluster: string) => taggedWithCluster(moto.url, cluster);
const liveInstances = async (cluster: string) =>
  (await left(cluster)).filter((r) => r.startsWith('Instance '));

describe('EC2 provider against moto', () => {
  it('creates the network, the instances with their user data and passwords, then removes all of it', async () => {
    const { ctx, spec, proxy } = await setup('life');
    const created = await up(ctx, spec);

    expect(created.hosts.map((h) => h.name)).toEqual(['controller-01', 'linux-01', 'win-01']);
    for (const host of created.hosts) expect(host.vars['ec2_private_ip']).toMatch(/^10\.0\.0\.\d+$/);
    expect(new Set(created.hosts.map((h) => h.address)).size).toBe(3);
    // The password EC2 (the proxy, for moto) encrypted with the imported key, decrypted by kubemix.
    const winId = String(created.hosts.find((h) => h.name === 'win-01')?.vars['ec2_instance_id']);
    expect(created.passwords.get('win-01')).toBe(proxy.windowsPasswords.get(winId));
    expect(await liveInstances('life')).toHaveLength(3);

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
    expect(await left('life')).toEqual([]);
    expect(ctx.ledger.resources.filter((r) => r.status !== 'deleted')).toEqual([]);
  });

  it('survives throttling, instances unknown right after launch, pending passwords and DependencyViolation', async () => {
    const { ctx, spec, proxy } = await setup('rough', {
      throttleEvery: 5,
      notFoundAfterCreate: 2,
      passwordPending: 2,
      dependencyViolations: 3,
    });
    const created = await up(ctx, spec);
    expect(created.passwords.size).toBe(1);
    expect(await liveInstances('rough')).toHaveLength(3);
    await destroyTask(ctx, spec);
    await leakCheckTask(ctx);
    expect(await left('rough')).toEqual([]);
    const injected = proxy.calls.filter((c) => c.injected).map((c) => c.injected);
    expect(injected).toContain('RequestLimitExceeded');
    expect(injected).toContain('InvalidInstanceID.NotFound');
    expect(injected).toContain('DependencyViolation');
    // Adaptive retry counted more attempts than commands.
    const totals = ctx.aws.totals();
    expect(totals.attempts).toBeGreaterThan(totals.commands);
  });

  it('launches once when the RunInstances answer is lost and the SDK retries (client token)', async () => {
    const { ctx, spec, proxy } = await setup('lost', { loseAnswer: { RunInstances: 1 } });
    await up(ctx, spec);
    expect(
      proxy.calls.filter((c) => c.action === 'RunInstances' && c.injected === 'answer lost'),
    ).toHaveLength(1);
    expect(await liveInstances('lost')).toHaveLength(3);
    await destroyTask(ctx, spec);
    expect(await left('lost')).toEqual([]);
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
      const { ctx, spec, proxy } = await setup(cluster);
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
      expect(await liveInstances(cluster)).toHaveLength(3);
      await destroyTask(ctx, spec);
      await leakCheckTask(ctx);
      expect(await left(cluster)).toEqual([]);
    },
  );

  it('destroys from the tags alone when the state records only the identity (a crash before the first resource record)', async () => {
    const { ctx, spec } = await setup('amnesia');
    await up(ctx, spec);
    const { ctx: fresh } = await (async () => {
      const endpoint = String(spec.provider.type === 'ec2' ? spec.provider.endpoint : '');
      // prepare-provider records the identity before anything is created: it is all a crash keeps.
      const ledger = new MemoryLedger();
      await ledger.record({ resources: ctx.ledger.resources.filter((r) => r.kind === 'cluster') });
      const again = await ec2Context({ cluster: 'amnesia', endpoint, ledger });
      disposers.push(again.dispose);
      return { ctx: again };
    })();
    await destroyTask(fresh, spec);
    await leakCheckTask(fresh);
    expect(await left('amnesia')).toEqual([]);
  });

  it('leaves resources of other clusters alone and reports leftovers by name', async () => {
    const { ctx, spec } = await setup('mine');
    await up(ctx, spec);
    const other = await ec2Context({
      cluster: 'theirs',
      endpoint: String(spec.provider.type === 'ec2' && spec.provider.endpoint),
    });
    disposers.push(other.dispose);
    await expect(leakCheckTask(other)).resolves.toBeUndefined();
    await destroyTask(other, spec);
    expect(await liveInstances('mine')).toHaveLength(3);
    await expect(leakCheckTask(ctx)).rejects.toThrow(
      /leak check: \d+ resource\(s\) of mine remain in eu-west-1: .*instance i-/,
    );
    await destroyTask(ctx, spec);
    expect(await left('mine')).toEqual([]);
  });
});
