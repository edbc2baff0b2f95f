import { CreateClusterCommand, EKSClient } from '@aws-sdk/client-eks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MOTO_ENV, type Moto, startMoto } from '../../../fixtures/ec2-proxy/moto.js';
import { describeEksCluster, eksWindowsUserData } from '../../../src/provider/ec2/eks.js';

Object.assign(process.env, MOTO_ENV);
let moto: Moto;
beforeAll(async () => {
  moto = await startMoto();
});
afterAll(async () => {
  await moto?.stop();
});

describe('EKS facts from DescribeCluster (moto)', () => {
  it('reads what the bootstrap needs and puts it into the user data', async () => {
    const eks = new EKSClient({ region: 'eu-west-1', endpoint: moto.url });
    await eks.send(
      new CreateClusterCommand({
        name: 'prod',
        roleArn: 'arn:aws:iam::123456789012:role/eks',
        resourcesVpcConfig: { subnetIds: ['subnet-0123456789abcdef0'] },
        kubernetesNetworkConfig: { serviceIpv4Cidr: '172.20.0.0/16' },
        version: '1.31',
      }),
    );
    eks.destroy();
    const facts = await describeEksCluster({ region: 'eu-west-1', endpoint: moto.url, cluster: 'prod' });
    expect(facts).toMatchObject({ name: 'prod', version: '1.31', serviceCidr: '172.20.0.0/16' });
    expect(facts.endpoint).toMatch(/^https:\/\//);
    const userData = eksWindowsUserData({ cluster: facts });
    expect(userData).toContain(`APIServerEndpoint = '${facts.endpoint}'`);
    expect(userData).toContain(`Base64ClusterCA = '${facts.certificateAuthority}'`);
    expect(userData).toContain("DNSClusterIP = '172.20.0.10'");
  });

  it('names the cluster and the field when it does not exist (input, exit 2)', async () => {
    const failure = await describeEksCluster({
      region: 'eu-west-1',
      endpoint: moto.url,
      cluster: 'nope',
    }).catch((e: Error & { exitCode?: number }) => e);
    expect(failure.message).toMatch(
      /^provider\.eks\.cluster: describing EKS cluster nope: ResourceNotFoundException/,
    );
  });
});
