import { describe, expect, it } from 'vitest';
import { planEc2 } from '../../../src/provider/ec2/plan.js';
import { clientToken } from '../../../src/provider/ec2/tags.js';
import { parseSpecText } from '../../../src/spec/parse.js';

const spec = (provider: string[], workers: string[]) =>
  parseSpecText(
    [
      'name: lab',
      'provider:',
      '  type: ec2',
      '  operatorCidr: 198.51.100.0/24',
      ...provider.map((l) => `  ${l}`),
      'nodes:',
      '  controlPlane: { count: 3, diskGiB: 40 }',
      workers.length > 0 ? '  workers:' : '  workers: []',
      ...workers.map((w) => `    - ${w}`),
    ].join('\n'),
    'spec.yaml',
  );

describe('planEc2', () => {
  const plan = planEc2(
    spec(
      [],
      [
        '{ name: linux, os: linux, count: 2, instanceType: c6i.xlarge }',
        '{ name: win, os: windows, count: 1 }',
        '{ name: none, os: linux, count: 0 }',
      ],
    ),
  );

  it('has one instance group per node group with nodes, named as the planner names them', () => {
    expect(plan.groups.map((g) => [g.group, g.nodes, g.instanceType])).toEqual([
      ['control-plane', ['controller-01', 'controller-02', 'controller-03'], 't3.large'],
      ['linux', ['linux-01', 'linux-02'], 'c6i.xlarge'],
      ['win', ['win-01'], 'm5.large'],
    ]);
    expect(plan.groups[0]?.rootVolumeGiB).toBe(40);
    expect(plan.groups[2]).toMatchObject({ os: 'windows', windowsVersion: '2022', connection: 'winrm' });
  });

  it('finds AMIs by the public SSM parameters, then by owner and name', () => {
    expect(plan.groups[0]?.image).toEqual({
      kind: 'default',
      parameter: '/aws/service/debian/release/12/latest/amd64',
      owner: '136693071363',
      namePattern: 'debian-12-amd64-*',
    });
    expect(plan.groups[2]?.image).toMatchObject({
      parameter: '/aws/service/ami-windows-latest/Windows_Server-2022-English-Full-Base',
      owner: 'amazon',
    });
    const given = planEc2(
      spec(
        ['images: { linux: ami-0abcdef01, windows: "ssm:/my/windows" }'],
        ['{ name: win, os: windows, count: 1 }'],
      ),
    );
    expect(given.groups.map((g) => g.image)).toEqual([
      { kind: 'id', imageId: 'ami-0abcdef01' },
      { kind: 'parameter', parameter: '/my/windows' },
    ]);
  });

  it('opens SSH, WinRM and the API server to the operator only, everything within the cluster', () => {
    expect(plan.rules).toEqual([
      {
        protocol: '-1',
        fromPort: -1,
        toPort: -1,
        source: 'self',
        description: 'all traffic between cluster members',
      },
      {
        protocol: 'tcp',
        fromPort: 6443,
        toPort: 6443,
        source: '198.51.100.0/24',
        description: 'API server from the operator',
      },
      {
        protocol: 'tcp',
        fromPort: 22,
        toPort: 22,
        source: '198.51.100.0/24',
        description: 'SSH from the operator',
      },
      {
        protocol: 'tcp',
        fromPort: 5985,
        toPort: 5985,
        source: '198.51.100.0/24',
        description: 'WinRM from the operator',
      },
    ]);
    const https = planEc2(spec(['winrm: https'], ['{ name: win, os: windows, count: 1, connection: ssh }']));
    expect(https.rules.map((r) => r.fromPort)).toEqual([-1, 6443, 22]);
  });

  it('creates a VPC with the first /24 as subnet, or uses the subnet the spec names', () => {
    expect(plan.network).toEqual({ kind: 'create', vpcCidr: '10.0.0.0/16', subnetCidr: '10.0.0.0/24' });
    expect(planEc2(spec(['vpcCidr: 172.20.0.0/16'], [])).network).toMatchObject({
      subnetCidr: '172.20.0.0/24',
    });
    expect(
      planEc2(spec(['vpcId: vpc-0123456789abcdef0', 'subnetId: subnet-0123456789abcdef0'], [])).network,
    ).toEqual({ kind: 'existing', vpcId: 'vpc-0123456789abcdef0', subnetId: 'subnet-0123456789abcdef0' });
  });
});

describe('clientToken', () => {
  it('is stable for a group and build, different across groups and builds, within EC2 limits', () => {
    const token = clientToken('lab', 'win', 'key-1');
    expect(token).toBe(clientToken('lab', 'win', 'key-1'));
    expect(token).not.toBe(clientToken('lab', 'linux', 'key-1'));
    expect(token).not.toBe(clientToken('lab', 'win', 'key-2'));
    expect(token.length).toBeLessThanOrEqual(64);
    expect(token).toMatch(/^[\x21-\x7e]+$/);
  });
});
