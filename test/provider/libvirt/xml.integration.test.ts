import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import { XMLParser } from 'fast-xml-parser';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { domainXml } from '../../../src/provider/libvirt/domain-xml.js';
import type { GuestInput } from '../../../src/provider/libvirt/guest-os.js';
import { cachedImage } from '../../../src/provider/libvirt/image.js';
import { linuxGuest } from '../../../src/provider/libvirt/linux-guest.js';
import { bridgeName, macAddress } from '../../../src/provider/libvirt/names.js';
import { networkXml } from '../../../src/provider/libvirt/network-xml.js';
import { overlayVolumeXml } from '../../../src/provider/libvirt/storage-xml.js';
import { testTempDir } from '../../helpers/temp.js';

// The XML kubemix hands libvirt, checked against libvirt's own RelaxNG schemas with
// virt-xml-validate (libvirt-clients), not against our expectations of it.
const base = cachedImage({ source: 'https://images.example/debian.qcow2', sha512: 'a'.repeat(128) }, 'qcow2');
const input: GuestInput = {
  cluster: 'lab',
  node: 'controller-01',
  hypervisor: 'hypervisor-01',
  vcpus: 2,
  memoryMiB: 2048,
  diskGiB: 20,
  ip: '10.0.0.11',
  mac: macAddress('lab', 'controller-01'),
  network: 'lab.hypervisor-01.network',
  dnsDomain: 'lab.kubemix.internal',
  dataDir: '/var/lib/kubemix',
  publicKey: 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIHjV kubemix@lab',
  connection: 'ssh',
  images: { linux: base },
};
const guest = linuxGuest(input);

async function validate(kind: 'domain' | 'network' | 'storagevol', xml: string) {
  const file = join(await testTempDir('xml'), `${kind}.xml`);
  await writeFile(file, xml);
  return execa('virt-xml-validate', [file, kind], { reject: false });
}

const parser = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '@' });

describe('libvirt XML', () => {
  it('domain XML of a Linux guest is valid for libvirt, TCG or KVM, with the seed on IDE on a pc machine', async () => {
    for (const accel of ['qemu', 'kvm'] as const) {
      const xml = domainXml(guest, { accel, pool: 'kubemix', cluster: 'lab' });
      const checked = await validate('domain', xml);
      expect(checked.exitCode, checked.stderr).toBe(0);
      const domain = parser.parse(xml).domain;
      expect(domain['@type']).toBe(accel);
      expect(domain.os.type['@machine']).toBe('pc');
      const disks = domain.devices.disk as Array<Record<string, { '@bus'?: string; '@volume'?: string }>>;
      expect(disks.map((d) => [d['target']?.['@bus'], d['source']?.['@volume']])).toEqual([
        ['virtio', 'lab.controller-01.disk.qcow2'],
        ['ide', 'lab.controller-01.seed.iso'],
      ]);
    }
  });

  it("domain XML of a guest on a network spanning hypervisors gives its NIC the tunnel's MTU (virtio: QEMU's host_mtu)", async () => {
    expect(
      parser.parse(domainXml(guest, { accel: 'qemu', pool: 'kubemix', cluster: 'lab' })).domain.devices
        .interface.mtu,
    ).toBeUndefined();
    const spanning = linuxGuest({ ...input, mtu: 1450 });
    const xml = domainXml(spanning, { accel: 'qemu', pool: 'kubemix', cluster: 'lab' });
    const checked = await validate('domain', xml);
    expect(checked.exitCode, checked.stderr).toBe(0);
    const nic = parser.parse(xml).domain.devices.interface;
    expect(nic.model).toEqual({ '@type': 'virtio' });
    expect(nic.mtu).toEqual({ '@size': '1450' });
  });

  it('escapes values instead of splicing them (a hostile cluster name cannot add elements)', async () => {
    const xml = domainXml(guest, { accel: 'qemu', pool: 'kubemix', cluster: 'lab</kubemix:cluster><evil/>' });
    expect(xml).not.toContain('<evil/>');
    expect((await validate('domain', xml)).exitCode).toBe(0);
  });

  it('network XML is valid: NAT, the bridge, DHCP reservations only, DNS names', async () => {
    const xml = networkXml({
      name: 'lab.hypervisor-01.network',
      bridge: bridgeName('lab', 'hypervisor-01'),
      cidr: '10.0.0.0/24',
      dnsDomain: 'lab.kubemix.internal',
      role: 'gateway',
      address: '10.0.0.1',
      reservations: [{ mac: guest.mac, ip: '10.0.0.11', hostname: 'controller-01' }],
    });
    const checked = await validate('network', xml);
    expect(checked.exitCode, checked.stderr).toBe(0);
    const network = parser.parse(xml).network;
    expect(network.forward['@mode']).toBe('nat');
    expect(network.ip['@address']).toBe('10.0.0.1');
    expect(network.ip.dhcp.range).toBeUndefined();
    expect(network.ip.dhcp.host).toEqual({ '@mac': guest.mac, '@name': 'controller-01', '@ip': '10.0.0.11' });
    expect(network.mtu).toBeUndefined();
    expect(bridgeName('a-cluster-name-that-is-rather-long', 'a-hypervisor-name').length).toBeLessThanOrEqual(
      15,
    );
  });

  it('network XML of a bridged hypervisor is valid: its own address, no NAT, DHCP or DNS, the tunnel MTU', async () => {
    const xml = networkXml({
      name: 'lab.hypervisor-02.network',
      bridge: bridgeName('lab', 'hypervisor-02'),
      cidr: '10.0.0.0/24',
      dnsDomain: 'lab.kubemix.internal',
      role: 'bridged',
      address: '10.0.0.2',
      reservations: [],
      mtu: 1450,
    });
    const checked = await validate('network', xml);
    expect(checked.exitCode, checked.stderr).toBe(0);
    const network = parser.parse(xml).network;
    expect(network.forward).toBeUndefined();
    expect(network.ip).toEqual({ '@address': '10.0.0.2', '@prefix': '24' });
    expect(network.dns).toEqual({ '@enable': 'no' });
    expect(network.mtu).toEqual({ '@size': '1450' });
  });

  it('overlay volume XML is valid and backed by the cached image', async () => {
    const xml = overlayVolumeXml({
      name: 'lab.controller-01.disk.qcow2',
      sizeGiB: 20,
      basePath: `/pool/${base.volume}`,
      baseFormat: 'qcow2',
    });
    const checked = await validate('storagevol', xml);
    expect(checked.exitCode, checked.stderr).toBe(0);
    expect(parser.parse(xml).volume.backingStore.path).toBe(`/pool/${base.volume}`);
  });

  it('the cloud-init seed logs root in with the cluster key only, with ed25519/ecdsa host keys', () => {
    const seed = guest.disks[1]!.source;
    if (seed.kind !== 'config-iso') throw new Error('no seed');
    expect(seed.label).toBe('cidata');
    expect(seed.files['user-data']!.startsWith('#cloud-config\n')).toBe(true);
    const user = parse(seed.files['user-data']!);
    expect(user).toMatchObject({
      hostname: 'controller-01',
      users: [],
      disable_root: false,
      ssh_pwauth: false,
      ssh_authorized_keys: ['ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIHjV kubemix@lab'],
      ssh_genkeytypes: ['ed25519', 'ecdsa'],
    });
    expect(parse(seed.files['network-config']!).ethernets.primary.match.macaddress).toBe(guest.mac);
    expect(parse(seed.files['meta-data']!)).toEqual({
      'instance-id': 'lab.controller-01',
      'local-hostname': 'controller-01',
    });
  });
});
