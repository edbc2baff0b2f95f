import { describe, expect, it } from 'vitest';
import { SpecError, type SpecIssue } from '../../src/errors/index.js';
import { parseHypervisorAddress } from '../../src/spec/hypervisor-address.js';
import { WINDOWS_KUBELET_DEFAULT_ARGS } from '../../src/spec/schema.js';
import { isShortForm, parseShortForm, type ShortFormOptions } from '../../src/spec/short-form.js';

function issuesOf(text: string, options: ShortFormOptions = {}): SpecIssue[] {
  try {
    parseShortForm(text, options);
  } catch (error) {
    if (error instanceof SpecError) return error.issues;
    throw error;
  }
  throw new Error(`${text} parsed without an error`);
}

describe('isShortForm', () => {
  it('recognises the <distro>-<driver>-<controllers>-<computes>-<hypervisors> pattern', () => {
    expect(isShortForm('k8s-libvirt-1-1-1')).toBe(true);
    expect(isShortForm('okd-libvirt-3-0-1')).toBe(true);
    expect(isShortForm('k8s-libvirt-1-1')).toBe(false);
    expect(isShortForm('cluster.yaml')).toBe(false);
    expect(isShortForm('./k8s-libvirt-1-1-1')).toBe(false);
  });
});

describe('parseShortForm', () => {
  it('maps the image and network options onto the libvirt provider', () => {
    const spec = parseShortForm('k8s-libvirt-1-1-1', {
      linuxImage: 'https://images.example/debian.qcow2',
      linuxImageSha256: 'AB'.repeat(32),
      network: '10.213.0.0/24',
    });
    expect(spec.provider).toMatchObject({
      images: { linux: { source: 'https://images.example/debian.qcow2', sha256: 'ab'.repeat(32) } },
      network: { cidr: '10.213.0.0/24' },
    });
  });

  it('refuses an image URL without a digest and a digest without an image, naming the flags', () => {
    expect(() =>
      parseShortForm('k8s-libvirt-1-1-1', { linuxImage: 'https://images.example/d.qcow2' }),
    ).toThrow(
      'k8s-libvirt-1-1-1: --linux-image-sha256: is required with a URL: kubemix verifies every download',
    );
    expect(() => parseShortForm('k8s-libvirt-1-1-1', { windowsIsoSha256: 'ab'.repeat(32) })).toThrow(
      'k8s-libvirt-1-1-1: --windows-iso-sha256: is given without --windows-iso (the image it verifies)',
    );
    expect(() =>
      parseShortForm('k8s-libvirt-1-1-1', { linuxImage: '/x.qcow2', linuxImageSha256: 'xyz' }),
    ).toThrow('k8s-libvirt-1-1-1: --linux-image-sha256: must be 64 hexadecimal digits');
    expect(() => parseShortForm('k8s-libvirt-1-1-1', { network: '10.0.0/24' })).toThrow(
      'k8s-libvirt-1-1-1: --network: ',
    );
  });

  it('names the flags, not option paths, when Windows workers come without the ISO', () => {
    expect(issuesOf('k8s-libvirt-1-2-1', { windowsWorkers: 1 })).toEqual([
      {
        file: 'k8s-libvirt-1-2-1',
        path: '--windows-iso',
        message: expect.stringContaining('(--windows-iso PATH|URL with --windows-iso-sha256)'),
      },
    ]);
    expect(() =>
      parseShortForm('k8s-libvirt-1-2-1', {
        windowsWorkers: 1,
        windowsIso: '/isos/ws.iso',
        windowsIsoSha256: 'zz',
      }),
    ).toThrow('k8s-libvirt-1-2-1: --windows-iso-sha256: must be 64 hexadecimal digits');
  });

  it('maps k8s-libvirt-1-1-1 with nothing else onto a local libvirt cluster', () => {
    const spec = parseShortForm('k8s-libvirt-1-1-1');
    expect(spec.name).toBe('k8s-libvirt-1-1-1');
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
    expect(spec.nodes.controlPlane.count).toBe(1);
    expect(spec.nodes.workers).toEqual([
      {
        name: 'linux-workers',
        os: 'linux',
        count: 1,
        connection: 'ssh',
        kubeletExtraArgs: [],
        taint: false,
        hyperV: false,
      },
    ]);
    expect(spec.network.flannel).toEqual({ backend: 'vxlan', vni: 4096, port: 4789 });
  });

  it('splits computes into linux and windows groups and omits an empty group', () => {
    const iso = { windowsIso: 'https://isos.example/ws.iso', windowsIsoSha256: 'a'.repeat(64) };
    const one = parseShortForm('k8s-libvirt-1-1-1', { windowsWorkers: 1, ...iso });
    expect(one.nodes.workers.map((g) => [g.name, g.os, g.count])).toEqual([
      ['windows-workers', 'windows', 1],
    ]);
    expect(one.nodes.workers[0]).toMatchObject({
      windowsVersion: '2022',
      connection: 'winrm',
      kubeletExtraArgs: [...WINDOWS_KUBELET_DEFAULT_ARGS],
    });

    const mixed = parseShortForm('k8s-libvirt-1-3-1', {
      ...iso,
      windowsWorkers: 2,
      windowsVersion: '2019',
      kubernetesVersion: '1.36.4',
      name: 'mixed',
    });
    expect(mixed.name).toBe('mixed');
    expect(mixed.kubernetes.version).toBe('1.36.4');
    expect(mixed.nodes.workers.map((g) => [g.name, g.os, g.count, g.windowsVersion])).toEqual([
      ['linux-workers', 'linux', 1, undefined],
      ['windows-workers', 'windows', 2, '2019'],
    ]);
  });

  it('accepts 3 controllers and listed hypervisors', () => {
    const spec = parseShortForm('k8s-libvirt-3-2-2', { hypervisors: ['root@192.168.1.5:2222', 'hv2.lab'] });
    expect(spec.nodes.controlPlane.count).toBe(3);
    if (spec.provider.type !== 'libvirt') throw new Error('expected libvirt');
    expect(spec.provider.hypervisors).toEqual([
      { name: 'hypervisor-01', address: '192.168.1.5', port: 2222, credentials: { user: 'root' } },
      { name: 'hypervisor-02', address: 'hv2.lab' },
    ]);
    expect(parseShortForm('k8s-libvirt-5-0-1').nodes.workers).toEqual([]);
  });

  it('refuses other distros, listing what is supported', () => {
    expect(issuesOf('okd-libvirt-1-1-1')).toEqual([
      { file: 'okd-libvirt-1-1-1', path: 'distro', message: 'distro "okd" is not supported; supported: k8s' },
    ]);
  });

  it('sends ec2 and static to a YAML spec, and names the supported driver otherwise', () => {
    expect(issuesOf('k8s-ec2-1-1-1')[0]).toMatchObject({
      path: 'driver',
      message: expect.stringContaining('needs a YAML spec file'),
    });
    expect(issuesOf('k8s-static-1-1-1')[0]?.message).toContain('provider type static');
    expect(issuesOf('k8s-vbox-1-1-1')[0]?.message).toContain('supported: libvirt');
  });

  it('refuses 2 controllers, naming the part', () => {
    expect(issuesOf('k8s-libvirt-2-1-1')).toEqual([
      {
        file: 'k8s-libvirt-2-1-1',
        path: 'controllers',
        message: '2 controllers: must be 1, 3 or 5 (etcd needs an odd quorum)',
      },
    ]);
  });

  it('refuses a hypervisor count that does not match the addresses given', () => {
    expect(issuesOf('k8s-libvirt-1-1-2', { hypervisors: ['10.0.0.1'] })).toEqual([
      {
        file: 'k8s-libvirt-1-1-2',
        path: '--hypervisor',
        message: 'the short form asks for 2 hypervisors but 1 address is given',
      },
    ]);
    expect(issuesOf('k8s-libvirt-1-1-2')[0]).toMatchObject({
      path: 'hypervisors',
      message: expect.stringContaining('need their addresses'),
    });
    expect(issuesOf('k8s-libvirt-1-1-0')[0]).toMatchObject({
      path: 'hypervisors',
      message: 'must be at least 1',
    });
  });

  it('refuses more Windows workers than computes', () => {
    expect(issuesOf('k8s-libvirt-1-1-1', { windowsWorkers: 2 })).toEqual([
      {
        file: 'k8s-libvirt-1-1-1',
        path: '--windows-workers',
        message: '2 Windows workers but the short form has only 1 compute',
      },
    ]);
    expect(issuesOf('k8s-libvirt-1-1-1', { windowsWorkers: -1 })[0]?.path).toBe('--windows-workers');
  });

  it('reports every problem of the short form at once', () => {
    const paths = issuesOf('okd-vbox-2-1-3', { windowsWorkers: 4, hypervisors: ['a', 'b'] }).map(
      (i) => i.path,
    );
    expect(paths).toEqual(['distro', 'driver', 'controllers', '--windows-workers', '--hypervisor']);
  });

  it('validates the built spec with the YAML code path, naming short-form parts', () => {
    expect(issuesOf('k8s-libvirt-1-1-1', { name: 'Bad_Name' })).toEqual([
      { file: 'k8s-libvirt-1-1-1', path: '--name', message: expect.stringContaining('DNS label') },
    ]);
    expect(issuesOf('k8s-libvirt-1-1-1', { kubernetesVersion: 'latest' })[0]?.path).toBe(
      '--kubernetes-version',
    );
    expect(
      issuesOf('k8s-libvirt-1-1-1', { windowsWorkers: 1, windowsVersion: '2016' as '2019' })[0]?.path,
    ).toBe('--windows-version');
    expect(issuesOf('k8s-libvirt-1-1-1', { hypervisors: ['h:0'] })[0]?.path).toBe('--hypervisor 1');
  });

  it('refuses a non-short-form string with the expected shape in the message', () => {
    expect(issuesOf('hello')[0]?.message).toContain(
      '<distro>-<driver>-<controllers>-<computes>-<hypervisors>',
    );
  });
});

describe('parseHypervisorAddress', () => {
  it('reads host, user@host, user@host:port and bracketed IPv6', () => {
    expect(parseHypervisorAddress('hv1')).toEqual({ address: 'hv1' });
    expect(parseHypervisorAddress('root@10.0.0.1')).toEqual({ address: '10.0.0.1', user: 'root' });
    expect(parseHypervisorAddress('root@10.0.0.1:2222')).toEqual({
      address: '10.0.0.1',
      user: 'root',
      port: 2222,
    });
    expect(parseHypervisorAddress('[fd00::1]:22')).toEqual({ address: 'fd00::1', port: 22 });
    expect(parseHypervisorAddress('fd00::1')).toEqual({ address: 'fd00::1' });
  });

  it('refuses bad ports, empty users and malformed hosts', () => {
    expect(parseHypervisorAddress('h:70000')).toBe('has a port outside 1-65535');
    expect(parseHypervisorAddress('h:')).toBe('has a port outside 1-65535');
    expect(parseHypervisorAddress('@h')).toContain('empty user');
    expect(parseHypervisorAddress('bad host')).toContain('is not an address');
  });
});
