import { CreateSubnetCommand, CreateVpcCommand, EC2Client, RunInstancesCommand } from '@aws-sdk/client-ec2';
import { describe, expect, it } from 'vitest';
import { KubemixError } from '../../../src/errors/index.js';
import { destroyTask, prepareProvider } from '../../../src/provider/ec2/lifecycle.js';
import { ec2Spec, MOTO_LINUX_AMI, upToHosts, useMoto } from './harness.js';

const moto = useMoto();

/** Runs prepare-provider, create-network and create-hosts as `up` does; returns the error. */
async function upError(
  cluster: string,
  endpoint: string,
  extra: string[],
  options: { region?: string } = {},
) {
  const spec = ec2Spec({ name: cluster, endpoint, extra });
  if (options.region && spec.provider.type === 'ec2') spec.provider.region = options.region;
  const ctx = await moto.context(cluster, {
    endpoint,
    ...(options.region ? { region: options.region } : {}),
  });
  try {
    await upToHosts(ctx, spec);
  } catch (error) {
    return { error: error as KubemixError, ctx, spec };
  }
  throw new Error('up succeeded');
}

function expectOneLineInput(error: KubemixError, pattern: RegExp) {
  expect(error).toBeInstanceOf(KubemixError);
  expect(error.exitCode).toBe(2);
  expect(error.message).toMatch(pattern);
  expect(error.message).not.toContain('\n');
}

describe('EC2 bad input: one clear line, exit 2, nothing created', () => {
  it('unknown region', async () => {
    const { error } = await upError('region', moto.url, [], { region: 'xx-fake-1' });
    expectOneLineInput(error, /^provider\.region: unknown region xx-fake-1$/);
    expect(await moto.tagged('region')).toEqual([]);
  });

  it('a region the account has not enabled (OptInStatus not-opted-in)', async () => {
    // moto lists ap-east-1 as not-opted-in (moto/ec2/models/availability_zones_and_regions.py).
    const { error } = await upError('optin', moto.url, [], { region: 'ap-east-1' });
    expectOneLineInput(
      error,
      /^provider\.region: ap-east-1 is not enabled for this account \(OptInStatus not-opted-in\)/,
    );
  });

  it('an account allowed only its region (aws:RequestedRegion) passes the region check', async () => {
    const { proxy, endpoint } = await moto.faultProxy({ allowedRegions: ['eu-west-1'] });
    const spec = ec2Spec({ name: 'regiondeny', endpoint });
    const ctx = await moto.context('regiondeny', { endpoint });
    await expect(prepareProvider(ctx, spec)).resolves.toMatchObject({ availabilityZone: 'eu-west-1a' });
    // The policy is in force: a call signed for another region is refused.
    const elsewhere = await moto.context('regiondeny', { endpoint, region: 'us-east-1' });
    const denied = await prepareProvider(elsewhere, {
      ...spec,
      provider: { ...spec.provider, region: 'us-east-1' },
    } as typeof spec).then(
      () => undefined,
      (e: KubemixError) => e,
    );
    expect(denied?.message).toMatch(/UnauthorizedOperation/);
    expect(proxy.calls.some((c) => c.injected === 'UnauthorizedOperation')).toBe(true);
  });

  it('AMI not found', async () => {
    const spec = ec2Spec({ name: 'ami', endpoint: moto.url });
    if (spec.provider.type === 'ec2') spec.provider.images.linux = 'ami-0123456789abcdef0';
    const ctx = await moto.context('ami');
    const failure = await prepareProvider(ctx, spec).then(
      () => undefined,
      (e: KubemixError) => e,
    );
    expectOneLineInput(
      failure!,
      /^provider\.images\.linux: AMI ami-0123456789abcdef0 not found in eu-west-1$/,
    );
  });

  it('instance type not offered, and a missing SSM parameter: every problem at once', async () => {
    const spec = ec2Spec({ name: 'types', endpoint: moto.url });
    spec.nodes.controlPlane.instanceType = 'x9.huge';
    if (spec.provider.type === 'ec2') spec.provider.images.windows = 'ssm:/kubemix/no/such/parameter';
    const ctx = await moto.context('types');
    const failure = (await prepareProvider(ctx, spec).then(
      () => undefined,
      (e: KubemixError) => e,
    ))!;
    expect(failure.exitCode).toBe(2);
    expect(failure.message.split('\n')).toEqual([
      'nodes.controlPlane.instanceType: x9.huge is not offered in eu-west-1',
      'provider.images.windows: SSM parameter /kubemix/no/such/parameter not found in eu-west-1',
    ]);
    expect(await moto.tagged('types')).toEqual([]);
  });

  it('an existing subnet whose range clashes with the pod CIDR', async () => {
    const ec2 = new EC2Client({ region: 'eu-west-1', endpoint: moto.url });
    const vpc = await ec2.send(new CreateVpcCommand({ CidrBlock: '10.244.0.0/16' }));
    const subnet = await ec2.send(
      new CreateSubnetCommand({
        VpcId: vpc.Vpc?.VpcId,
        CidrBlock: '10.244.7.0/24',
        AvailabilityZone: 'eu-west-1a',
      }),
    );
    ec2.destroy();
    const id = subnet.Subnet?.SubnetId;
    const { error } = await upError('clash', moto.url, [`  subnetId: ${id}`]);
    expectOneLineInput(
      error,
      new RegExp(
        `^provider\\.subnetId: subnet ${id} \\(10\\.244\\.7\\.0/24\\) overlaps network\\.podCIDR \\(10\\.244\\.0\\.0/16\\)$`,
      ),
    );
    expect(await moto.tagged('clash')).toEqual([]);
  });

  it('a subnet that does not exist', async () => {
    const { error } = await upError('nosubnet', moto.url, ['  subnetId: subnet-0123456789abcdef0']);
    expectOneLineInput(error, /^provider\.subnetId: subnet subnet-0123456789abcdef0 not found in eu-west-1$/);
  });

  it('missing credentials: one line naming the chain it tried, and no credential in it', async () => {
    const saved = { ...process.env };
    try {
      for (const name of ['AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY', 'AWS_SESSION_TOKEN', 'AWS_PROFILE'])
        delete process.env[name];
      process.env['AWS_SHARED_CREDENTIALS_FILE'] = '/nonexistent/kubemix/credentials';
      process.env['AWS_CONFIG_FILE'] = '/nonexistent/kubemix/config';
      process.env['AWS_EC2_METADATA_DISABLED'] = 'true';
      const { error } = await upError('nocreds', moto.url, []);
      expectOneLineInput(
        error,
        /no AWS credentials found; tried environment .*SSO.*~\/\.aws\/credentials.*instance metadata/,
      );
    } finally {
      process.env = saved;
    }
  });
});

describe('EC2 limits found before anything is created', () => {
  it('diskGiB below the AMI root volume names the group field', async () => {
    const spec = ec2Spec({ name: 'disk', endpoint: moto.url });
    spec.nodes.workers[1]!.diskGiB = 8;
    const ctx = await moto.context('disk');
    const failure = await prepareProvider(ctx, spec).then(
      () => undefined,
      (e: KubemixError) => e,
    );
    // moto's Windows AMI maps a 15 GiB root volume (moto/ec2/resources/amis.json).
    expectOneLineInput(
      failure!,
      /^nodes\.workers\.1\.diskGiB: 8 GiB is smaller than the root volume of AMI ami-b7e93bce \(15 GiB\)$/,
    );
    expect(await moto.tagged('disk')).toEqual([]);
  });

  it('the On-Demand Standard vCPU quota, counting what already runs in the account', async () => {
    const ec2 = new EC2Client({ region: 'eu-west-1', endpoint: moto.url });
    // Someone else's m5.large (2 vCPUs) runs in the region.
    await ec2.send(
      new RunInstancesCommand({
        ImageId: MOTO_LINUX_AMI,
        InstanceType: 'm5.large',
        MinCount: 1,
        MaxCount: 1,
      }),
    );
    ec2.destroy();
    const { proxy, endpoint } = await moto.faultProxy({ quotas: { 'L-1216C47A': 7 } });
    // controller t3.large + linux t3.large + win m5.large: 6 vCPUs; 6 + 2 > 7.
    const { error } = await upError('vcpus', endpoint, []);
    expectOneLineInput(
      error,
      /^nodes\.controlPlane\.instanceType: the cluster needs 6 vCPUs of On-Demand Standard instances and 2 run already, above the quota L-1216C47A of 7 in eu-west-1/,
    );
    expect(proxy.actions()).toContain('ServiceQuotas.GetServiceQuota');
    expect(await moto.tagged('vcpus')).toEqual([]);
  });

  it('the VPCs-per-region quota when kubemix would create a VPC', async () => {
    const { endpoint } = await moto.faultProxy({ quotas: { 'L-F678F1CE': 1 } });
    // moto has the region's default VPC: one of one.
    const { error } = await upError('vpcs', endpoint, []);
    expectOneLineInput(
      error,
      /^provider\.subnetId: kubemix would create a VPC, but eu-west-1 has 1 of 1 \(quota L-F678F1CE, VPCs per Region\)/,
    );
    expect(await moto.tagged('vpcs')).toEqual([]);
  });
});

describe('EC2 runtime failures: one line, exit 1', () => {
  it('insufficient quota at RunInstances names the quota; down then leaves nothing', async () => {
    const { endpoint } = await moto.faultProxy({
      failOnce: { RunInstances: 1 },
      failCode: 'VcpuLimitExceeded',
    });
    const { error, ctx, spec } = await upError('quota', endpoint, []);
    expect(error.exitCode).toBe(1);
    expect(error.message).toMatch(
      /^create-hosts: 1 x t3\.large for group control-plane: VcpuLimitExceeded .*raise the quota/,
    );
    expect(error.message).not.toContain('\n');
    await destroyTask(ctx, spec);
    expect(await moto.tagged('quota')).toEqual([]);
  });
});
