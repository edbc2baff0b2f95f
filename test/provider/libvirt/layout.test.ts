import { describe, expect, it } from 'vitest';
import { nodeRequests } from '../../../src/plan/hosts.js';
import { type LibvirtClusterSpec, libvirtLayout } from '../../../src/provider/libvirt/layout.js';
import { bridgeName, networkName, tunnelName, tunnelVni } from '../../../src/provider/libvirt/names.js';
import { autounattendXml } from '../../../src/provider/libvirt/windows/index.js';
import { type ClusterSpecInput, clusterSpecSchema } from '../../../src/spec/schema.js';
import { loadVersions } from '../../../src/versions/versions.js';

const versions = loadVersions();
const WINDOWS_ISO = { source: 'https://isos.example/ws2022.iso', sha256: 'a'.repeat(64) };

function layout(input: Partial<ClusterSpecInput> & { provider: ClusterSpecInput['provider'] }) {
  const spec = clusterSpecSchema.parse({ name: 'lab', ...input }) as LibvirtClusterSpec;
  return libvirtLayout(spec, nodeRequests(spec), {
    versions,
    clusterDir: '/clusters/lab',
    publicKey: 'ssh-ed25519 AAAA k',
  });
}

const twoHypervisors = {
  type: 'libvirt' as const,
  hypervisors: [
    { name: 'hv-a', address: '192.0.2.10', credentials: { user: 'root', privateKey: { file: '/keys/hv' } } },
    { name: 'hv-b', address: 'hv-b.lab.internal', port: 2222, uri: 'qemu+ssh://x/system' },
    { name: 'hv-c', address: '192.0.2.12' },
  ],
  knownHosts: '/keys/known_hosts',
  images: { windows: WINDOWS_ISO },
};

describe('libvirt layout over several hypervisors', () => {
  const spread = layout({
    provider: twoHypervisors,
    nodes: {
      controlPlane: { count: 3 },
      workers: [
        { name: 'linux', os: 'linux', count: 1 },
        { name: 'win', os: 'windows', count: 1, connection: 'ssh' },
      ],
    },
  });
  const placed = (hv: string) => spread.placed.get(hv)?.guests.map((g) => g.node);

  it('spreads the nodes round-robin in node order: the controllers land on different hypervisors', () => {
    expect(placed('hv-a')).toEqual(['controller-01', 'linux-01']);
    expect(placed('hv-b')).toEqual(['controller-02', 'win-01']);
    expect(placed('hv-c')).toEqual(['controller-03']);
    // The same spec always places the same way (plan shows it, resumed runs agree).
    expect(
      layout({ provider: twoHypervisors, nodes: { controlPlane: { count: 3 } } }).placed.get('hv-b')
        ?.guests[0]?.node,
    ).toBe('controller-02');
  });

  it('names every per-hypervisor resource after its hypervisor; the first is the gateway with every reservation', () => {
    const [a, b] = [spread.placed.get('hv-a')!, spread.placed.get('hv-b')!];
    expect(a.network).toMatchObject({
      name: networkName('lab', 'hv-a'),
      bridge: bridgeName('lab', 'hv-a'),
      role: 'gateway',
      address: '10.0.0.1',
      mtu: 1450,
    });
    expect(a.network.reservations.map((r) => [r.hostname, r.ip])).toEqual([
      ['controller-01', '10.0.0.11'],
      ['controller-02', '10.0.0.12'],
      ['controller-03', '10.0.0.13'],
      ['linux-01', '10.0.0.14'],
      ['win-01', '10.0.0.15'],
    ]);
    expect(b.network).toMatchObject({
      name: 'lab.hv-b.network',
      role: 'bridged',
      address: '10.0.0.2',
      reservations: [],
    });
    expect(new Set([0, 1, 2].map((i) => bridgeName('lab', `hv-${'abc'[i]}`))).size).toBe(3);
    expect(b.guests.every((g) => g.network === 'lab.hv-b.network')).toBe(true);
  });

  it('joins the networks with one VXLAN device per hypervisor, flooding to every other hypervisor', () => {
    expect(spread.placed.get('hv-b')?.tunnel).toEqual({
      device: tunnelName('lab', 'hv-b'),
      bridge: bridgeName('lab', 'hv-b'),
      vni: tunnelVni('lab'),
      port: 4790,
      peers: ['192.0.2.10', '192.0.2.12'],
      mtu: 1450,
    });
    expect(tunnelVni('lab')).toBeGreaterThanOrEqual(100_000);
    expect(tunnelVni('lab')).toBeLessThan(2 ** 24);
  });

  it('reaches the guests through the gateway hypervisor, with its own login and known_hosts', () => {
    const controller = spread.nodes.find((n) => n.name === 'controller-02')!;
    expect(controller.jump).toEqual({
      name: 'hv-a',
      address: '192.0.2.10',
      port: 22,
      credentials: { user: 'root', privateKey: { file: '/keys/hv' } },
      knownHostsFiles: ['/keys/known_hosts'],
    });
    expect(controller.vars).toMatchObject({ hypervisor: 'hv-b', libvirt_uri: 'qemu+ssh://x/system' });
    const windows = spread.nodes.find((n) => n.name === 'win-01')!;
    expect(windows.credentials).toEqual({
      user: 'Administrator',
      privateKey: { file: '/clusters/lab/id_ed25519' },
    });
    expect(windows.jump?.name).toBe('hv-a');
  });

  it("gives every guest's NIC the tunnel's MTU (Linux and Windows, on every hypervisor)", () => {
    const guests = [...spread.placed.values()].flatMap((p) => p.guests);
    expect(guests.map((g) => [g.node, g.mtu])).toEqual([
      ['controller-01', 1450],
      ['linux-01', 1450],
      ['controller-02', 1450],
      ['win-01', 1450],
      ['controller-03', 1450],
    ]);
  });

  it('checks and prepares only the hypervisors that get guests', () => {
    const small = layout({ provider: twoHypervisors, nodes: { controlPlane: { count: 1 } } });
    expect([...small.placed.keys()]).toEqual(['hv-a']);
    expect(small.placed.get('hv-a')?.tunnel).toBeUndefined();
    expect(small.placed.get('hv-a')?.network.mtu).toBeUndefined();
    // One hypervisor, no tunnel: the NIC keeps libvirt's default MTU.
    expect(small.placed.get('hv-a')?.guests[0]?.mtu).toBeUndefined();
  });
});

describe('libvirt layout of a Windows guest on the local hypervisor', () => {
  const local = layout({
    provider: { type: 'libvirt', images: { windows: WINDOWS_ISO } },
    nodes: { controlPlane: { count: 1 }, workers: [{ name: 'windows-workers', os: 'windows', count: 1 }] },
  });
  const node = local.nodes.find((n) => n.os === 'windows')!;

  it('connects over WinRM as Administrator with the password create-hosts generates into secrets.json', () => {
    expect(node.credentials).toEqual({ user: 'Administrator' });
    expect(node.vars).toMatchObject({
      kubemix_password_secret: 'libvirt_windows_passwords.windows-workers-01',
      libvirt_wait_port: 5985,
      libvirt_system_disk: 'sda',
      libvirt_config_volume: 'lab.windows-workers-01.config.iso',
      libvirt_config_target: 'sdc',
    });
    expect(node.jump).toBeUndefined();
  });

  it('gives a computer name of at most 15 characters and caches the ISO it installs from', () => {
    const guest = local.placed.get('hypervisor-01')!.guests.find((g) => g.os === 'windows')!;
    const config = guest.disks.find((d) => d.source.kind === 'windows-config')!.source;
    if (config.kind !== 'windows-config') throw new Error('no config ISO');
    expect(config.config.computerName).toMatch(/^windows-wo-[0-9a-f]{4}$/);
    expect(config.config.devices).toBe('emulated');
    expect(config.config.sshAuthorizedKey).toBeUndefined();
    expect(local.placed.get('hypervisor-01')!.images.map((i) => i.format)).toEqual(['qcow2', 'iso']);
  });
});

describe('libvirt layout of a Windows Server 2025 guest (spec to answer file)', () => {
  const VIRTIO_ISO = { source: 'https://isos.example/virtio-win.iso', sha256: 'b'.repeat(64) };
  const built = layout({
    provider: { type: 'libvirt', images: { windows: WINDOWS_ISO, virtio: VIRTIO_ISO } },
    nodes: {
      controlPlane: { count: 1 },
      workers: [{ name: 'windows-workers', os: 'windows', count: 1, windowsVersion: '2025' }],
    },
  });

  it('installs the 2025 Datacenter Core image with the 2k25 virtio drivers', () => {
    const guest = built.placed.get('hypervisor-01')!.guests.find((g) => g.os === 'windows')!;
    const config = guest.disks.find((d) => d.source.kind === 'windows-config')!.source;
    if (config.kind !== 'windows-config') throw new Error('no config ISO');
    expect(config.config).toMatchObject({
      version: '2025',
      image: { name: 'Windows Server 2025 SERVERDATACENTERCORE' },
      devices: 'virtio',
    });
    const xml = autounattendXml({ ...config.config, administratorPassword: 'Pw-1-not-logged' });
    expect(xml).toContain('<Path>E:\\viostor\\2k25\\amd64</Path>');
    expect(xml).toContain('<Path>E:\\NetKVM\\2k25\\amd64</Path>');
    expect(xml).toContain('<Value>Windows Server 2025 SERVERDATACENTERCORE</Value>');
    expect(built.nodes.find((n) => n.os === 'windows')?.windowsVersion).toBe('2025');
  });
});
