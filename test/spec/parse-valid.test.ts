import { describe, expect, it } from 'vitest';
import { parseSpecText } from '../../src/spec/parse.js';
import type { ClusterSpec, WorkerGroup } from '../../src/spec/schema.js';
import { WINDOWS_KUBELET_DEFAULT_ARGS } from '../../src/spec/schema.js';
import { fixtureNames, readFixture } from './fixtures.js';

function parse(name: string): ClusterSpec {
  const { text, file } = readFixture('valid', name);
  return parseSpecText(text, file);
}

function group(spec: ClusterSpec, name: string): WorkerGroup {
  const found = spec.nodes.workers.find((g) => g.name === name);
  if (!found) throw new Error(`no worker group ${name}`);
  return found;
}

describe('valid spec fixtures', () => {
  it('has the fixtures the brief lists', () => {
    expect(fixtureNames('valid')).toEqual([
      'aws',
      'ec2',
      'ec2-moto',
      'existing-machines',
      'kubelet-overrides',
      'libvirt-two-hypervisors',
      'minimal',
      'static-1-1-1-windows',
      'static-ha',
    ]);
  });

  it.each(fixtureNames('valid'))('%s parses', (name) => {
    const spec = parse(name);
    expect(spec.apiVersion).toBe('kubemix/v1');
    expect(spec.name).toMatch(/^[a-z0-9-]+$/);
  });

  it('fills network and node defaults in a minimal spec', () => {
    const spec = parse('minimal');
    expect(spec.network).toEqual({
      podCIDR: '10.244.0.0/16',
      serviceCIDR: '10.96.0.0/12',
      flannel: { backend: 'vxlan', vni: 4096, port: 4789 },
    });
    expect(spec.nodes.controlPlane).toEqual({ count: 1, connection: 'ssh', kubeletExtraArgs: [] });
    expect(spec.nodes.workers).toEqual([]);
    expect(spec.kubernetes).toEqual({});
    expect(spec.provider).toEqual({
      type: 'libvirt',
      hypervisors: [{ name: 'hypervisor-01', address: 'localhost' }],
      network: { cidr: '10.0.0.0/24' },
      images: {},
      storagePool: 'kubemix',
      tunnel: { port: 4790 },
      bootTimeoutMinutes: 15,
      windows: { installTimeoutMinutes: 45, goldenImage: false },
      dataDir: '/var/lib/kubemix',
    });
  });

  it('gives windows groups their defaults and linux groups theirs', () => {
    const spec = parse('static-1-1-1-windows');
    expect(group(spec, 'windows')).toMatchObject({
      os: 'windows',
      windowsVersion: '2022',
      connection: 'winrm',
      kubeletExtraArgs: [...WINDOWS_KUBELET_DEFAULT_ARGS],
      taint: false,
      hyperV: false,
    });
    const linux = group(spec, 'linux');
    expect(linux).toMatchObject({ os: 'linux', connection: 'ssh', kubeletExtraArgs: [] });
    expect(linux.windowsVersion).toBeUndefined();
    expect(WINDOWS_KUBELET_DEFAULT_ARGS).toEqual([
      '--windows-priorityclass=ABOVE_NORMAL_PRIORITY_CLASS',
      '--system-reserved=memory=1.5Gi',
      '--kube-reserved=memory=0.5Gi',
    ]);
  });

  it('resolves each static host connection from its group', () => {
    const spec = parse('static-1-1-1-windows');
    if (spec.provider.type !== 'static') throw new Error('expected static');
    expect(spec.provider.hosts.map((h) => [h.name, h.group, h.connection])).toEqual([
      ['cp-01', 'control-plane', 'ssh'],
      ['lin-01', 'linux', 'ssh'],
      ['win-01', 'windows', 'winrm'],
    ]);
    expect(spec.provider.hosts[2]?.credentials).toEqual({
      user: 'Administrator',
      password: { env: 'KUBEMIX_WIN_PASSWORD' },
    });
    expect(spec.kubernetes.version).toBe('1.36.4');
  });

  it('keeps given kubelet args instead of the Windows defaults, and given connections', () => {
    const spec = parse('kubelet-overrides');
    expect(group(spec, 'win')).toMatchObject({
      connection: 'ssh',
      hyperV: true,
      kubeletExtraArgs: ['--windows-priorityclass=HIGH_PRIORITY_CLASS', '--system-reserved=memory=2Gi'],
    });
    expect(spec.nodes.controlPlane.kubeletExtraArgs).toEqual(['--max-pods=50']);
    expect(spec.network.flannel.vni).toBe(4097);
    if (spec.provider.type !== 'static') throw new Error('expected static');
    expect(spec.provider.hosts.map((h) => h.connection)).toEqual(['local', 'ssh']);
  });

  it('reads a static HA control plane with its endpoint', () => {
    const spec = parse('static-ha');
    expect(spec.nodes.controlPlane).toMatchObject({ count: 3, endpoint: 'api.ha-lab.internal:6443' });
    if (spec.provider.type !== 'static') throw new Error('expected static');
    expect(spec.provider.hosts.filter((h) => h.group === 'control-plane')).toHaveLength(3);
    expect(spec.provider.hosts.find((h) => h.name === 'worker-01')?.port).toBe(2222);
  });

  it('reads libvirt hypervisors, network and a Windows 2019 group', () => {
    const spec = parse('libvirt-two-hypervisors');
    if (spec.provider.type !== 'libvirt') throw new Error('expected libvirt');
    expect(spec.provider.hypervisors.map((h) => h.name)).toEqual(['hv-01', 'hv-02']);
    expect(spec.provider.hypervisors[1]).toMatchObject({
      address: 'hv2.lab.internal',
      port: 2222,
      uri: 'qemu:///system',
    });
    expect(spec.provider.network).toEqual({ cidr: '10.10.0.0/24' });
    expect(spec.provider.tunnel).toEqual({ port: 4790 });
    expect(spec.provider.windows).toEqual({ installTimeoutMinutes: 45, goldenImage: false });
    expect(group(spec, 'win')).toMatchObject({ windowsVersion: '2019', connection: 'ssh', memoryGiB: 16 });
    expect(group(spec, 'linux')).toMatchObject({ count: 2, vcpus: 2, diskGiB: 30 });
  });

  it('reads an EC2 provider: operator CIDR, images, per-group instance types, defaults', () => {
    const spec = parse('ec2');
    expect(spec.provider).toEqual({
      type: 'ec2',
      region: 'eu-west-1',
      operatorCidr: '203.0.113.0/24',
      images: { windows: 'ssm:/aws/service/ami-windows-latest/Windows_Server-2022-English-Core-Base' },
      connectVia: 'public',
      vpcCidr: '10.0.0.0/16',
      winrm: 'http',
    });
    expect(spec.nodes.controlPlane.instanceType).toBe('t3.medium');
    expect(group(spec, 'win')).toMatchObject({
      count: 2,
      taint: true,
      windowsVersion: '2022',
      instanceType: 'm5.xlarge',
    });
    expect(group(spec, 'linux').instanceType).toBeUndefined();
  });
});
