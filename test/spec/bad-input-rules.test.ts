import { describe, expect, it } from 'vitest';
import { SpecError, type SpecIssue } from '../../src/errors/index.js';
import { plannedHosts } from '../../src/plan/hosts.js';
import { parseCidr } from '../../src/spec/cidr.js';
import { type ClusterSpecInput, specWarnings, validateSpecInput } from '../../src/spec/index.js';
import { parseShortForm } from '../../src/spec/short-form.js';
import { loadVersions } from '../../src/versions/versions.js';

// Input kubemix accepted although it cannot work (issue #21 item 11): each is refused with one
// issue naming the field.

function issuesOf(input: ClusterSpecInput): SpecIssue[] {
  try {
    validateSpecInput(input, { file: 'spec.yaml' });
  } catch (error) {
    if (error instanceof SpecError) return error.issues;
    throw error;
  }
  return [];
}

type StaticHost = Extract<ClusterSpecInput['provider'], { type: 'static' }>['hosts'][number];
const key = { user: 'root', privateKey: { file: '/keys/id' } };
const staticSpec = (hosts: StaticHost[]): ClusterSpecInput => ({
  name: 'lab',
  provider: { type: 'static', hosts },
  nodes: {
    controlPlane: { credentials: key },
    workers: [
      {
        name: 'linux',
        os: 'linux',
        count: hosts.filter((h) => h.group === 'linux').length,
        credentials: key,
      },
      {
        name: 'windows',
        os: 'windows',
        count: hosts.filter((h) => h.group === 'windows').length,
        credentials: { user: 'Administrator', password: { env: 'WIN_PW' } },
      },
    ],
  },
});

describe('two static hosts at one address', () => {
  it('same address and SSH port: refused at the second host, naming both', () => {
    const issues = issuesOf(
      staticSpec([
        { name: 'cp-01', address: '192.0.2.10', group: 'control-plane' },
        { name: 'lin-01', address: '192.0.2.10', port: 22, group: 'linux' },
      ]),
    );
    expect(issues).toEqual([
      expect.objectContaining({
        path: 'provider.hosts.1.address',
        message:
          'hosts cp-01 and lin-01 have the same address 192.0.2.10 and SSH port 22: one machine listed twice',
      }),
    ]);
  });

  it('other SSH ports, or WinRM, at one address: refused too, the address being both nodes’ node address', () => {
    const ssh = issuesOf(
      staticSpec([
        { name: 'cp-01', address: 'Node.Example', port: 2222, group: 'control-plane' },
        { name: 'lin-01', address: 'node.example', port: 2200, group: 'linux' },
      ]),
    );
    expect(ssh.map((i) => i.path)).toEqual(['provider.hosts.1.address']);
    expect(ssh[0]?.message).toMatch(
      /^hosts cp-01 and lin-01 have the same address node\.example: .*node address/,
    );
    const winrm = issuesOf(
      staticSpec([
        { name: 'cp-01', address: '192.0.2.10', group: 'control-plane' },
        { name: 'win-01', address: '192.0.2.10', group: 'windows' },
      ]),
    );
    expect(winrm.map((i) => [i.path, i.message.slice(0, 50)])).toEqual([
      ['provider.hosts.1.address', 'hosts cp-01 and win-01 have the same address 192.0'],
    ]);
  });

  it('two hosts with connection local are both this machine', () => {
    const issues = issuesOf(
      staticSpec([
        { name: 'cp-01', address: '127.0.0.1', group: 'control-plane', connection: 'local' },
        { name: 'lin-01', address: '127.0.0.2', group: 'linux', connection: 'local' },
      ]),
    );
    expect(issues.map((i) => i.path)).toEqual(['provider.hosts.1.connection']);
  });

  it('distinct addresses pass', () => {
    const issues = issuesOf(
      staticSpec([
        { name: 'cp-01', address: '192.0.2.10', group: 'control-plane' },
        { name: 'lin-01', address: '192.0.2.11', group: 'linux' },
        { name: 'win-01', address: '192.0.2.12', group: 'windows' },
      ]),
    );
    expect(issues).toEqual([]);
  });
});

describe('two libvirt hypervisors at one address', () => {
  it('is refused: the tunnel runs between their addresses', () => {
    const issues = issuesOf({
      name: 'lab',
      provider: {
        type: 'libvirt',
        hypervisors: [
          { name: 'hv1', address: '192.0.2.1' },
          { name: 'hv2', address: '192.0.2.1', port: 2222 },
        ],
      },
      nodes: { controlPlane: { count: 1 }, workers: [{ name: 'w', os: 'linux', count: 1 }] },
    });
    expect(issues.map((i) => [i.path, i.message.slice(0, 55)])).toEqual([
      ['provider.hypervisors.1.address', 'hypervisors hv1 and hv2 have the same address 192.0.2.1'],
    ]);
  });
});

describe('a libvirt guest network too small for the guests', () => {
  const libvirt = (cidr: string, workers: number): ClusterSpecInput => ({
    name: 'lab',
    provider: { type: 'libvirt', network: { cidr } },
    nodes: { controlPlane: { count: 1 }, workers: [{ name: 'w', os: 'linux', count: workers }] },
  });
  /** Whether every address the real layout hands out lies inside the network, below its broadcast. */
  const fits = (cidr: string, workers: number) => {
    const parsed = parseCidr(cidr)!;
    const broadcast = parsed.network + 2 ** (32 - parsed.prefix) - 1;
    const spec = validateSpecInput(libvirt('10.0.0.0/24', workers), { file: 'x' });
    const hosts = plannedHosts(
      { ...spec, provider: { ...spec.provider, network: { cidr } } } as typeof spec,
      {
        versions: loadVersions(),
        clusterDir: '',
      },
    );
    return hosts
      .filter((h) => h.role !== 'hypervisor')
      .every((h) => {
        const ip = parseCidr(`${h.address}/32`)!.network;
        return ip > parsed.network && ip < broadcast;
      });
  };

  it('is refused exactly when the layout would give a guest an address outside it', () => {
    for (const [cidr, prefix] of [
      ['10.0.0.0/28', 28],
      ['10.0.0.0/27', 27],
    ] as const) {
      const largest = [...Array(40).keys()].filter((workers) => fits(cidr, workers)).at(-1)!;
      expect(issuesOf(libvirt(cidr, largest)), `${cidr} with ${largest} workers`).toEqual([]);
      const refused = issuesOf(libvirt(cidr, largest + 1));
      expect(refused.map((i) => i.path)).toEqual(['provider.network.cidr']);
      const guests = largest + 2;
      expect(refused[0]?.message).toContain(`${cidr} is too small for ${guests} guests`);
      expect(refused[0]?.message).toContain(`needs ${guests + 10} host addresses`);
      expect(refused[0]?.message).toContain(`a /${prefix} has ${2 ** (32 - prefix) - 2}`);
    }
  });

  it('names --network in a short form, with the numbers', () => {
    try {
      parseShortForm('k8s-libvirt-1-1-1', { network: '10.0.0.0/30' });
      expect.unreachable('a /30 holds no guests');
    } catch (error) {
      expect((error as SpecError).message).toBe(
        "k8s-libvirt-1-1-1: --network: 10.0.0.0/30 is too small for 2 guests: kubemix gives the hypervisors' bridges its first 10 host addresses and each guest one after them, so it needs 12 host addresses (a /28 or larger); a /30 has 2",
      );
    }
  });
});

describe('--windows-version without Windows workers', () => {
  it('is refused, naming the flag and --windows-workers', () => {
    expect(() => parseShortForm('k8s-libvirt-1-1-1', { windowsVersion: '2019' })).toThrow(
      'k8s-libvirt-1-1-1: --windows-version: the short form has no Windows workers to give Windows Server 2019; add --windows-workers N',
    );
  });
});

describe('specWarnings', () => {
  const ec2 = (operatorCidr: string) =>
    validateSpecInput(
      {
        name: 'cloud',
        provider: { type: 'ec2', region: 'eu-west-1', operatorCidr },
        nodes: { controlPlane: { count: 1 }, workers: [] },
      },
      { file: 'x' },
    );

  it('warns about an operatorCidr open to the whole internet, and only then', () => {
    expect(specWarnings(ec2('0.0.0.0/0'))).toEqual([
      expect.stringMatching(/^provider\.operatorCidr: 0\.0\.0\.0\/0 opens SSH, WinRM and the API server/),
    ]);
    expect(specWarnings(ec2('203.0.113.7/32'))).toEqual([]);
  });
});

describe('credentials for libvirt Linux guests', () => {
  it('are refused: the guests are reached as root with the cluster key, so they would be ignored', () => {
    const issues = issuesOf({
      name: 'lab',
      provider: { type: 'libvirt' },
      nodes: {
        controlPlane: { count: 1, credentials: { user: 'admin' } },
        workers: [
          { name: 'w', os: 'linux', count: 1, credentials: { user: 'root', privateKey: { file: '/k' } } },
        ],
      },
    });
    expect(issues.map((i) => i.path)).toEqual([
      'nodes.controlPlane.credentials',
      'nodes.workers.0.credentials',
    ]);
    expect(issues[0]?.message).toMatch(
      /^Linux guests on libvirt are reached as root with the cluster SSH key/,
    );
  });
});

describe('more hypervisors with guests than the guest network keeps bridge addresses for', () => {
  it('is refused at the spec, naming --hypervisor in a short form', () => {
    const hypervisors = Array.from({ length: 11 }, (_, i) => `192.0.2.${i + 1}`);
    expect(() => parseShortForm('k8s-libvirt-1-20-11', { hypervisors })).toThrow(
      /^k8s-libvirt-1-20-11: --hypervisor: 11 hypervisors would get guests; kubemix joins at most 10 /,
    );
    // With fewer guests than hypervisors only as many hypervisors get guests.
    expect(() => parseShortForm('k8s-libvirt-1-9-11', { hypervisors })).not.toThrow();
  });
});
