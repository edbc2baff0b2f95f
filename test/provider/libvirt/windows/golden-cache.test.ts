import { describe, expect, it } from 'vitest';
import type { GuestInput } from '../../../../src/provider/libvirt/guest-os.js';
import { cachedImage } from '../../../../src/provider/libvirt/image.js';
import { macAddress } from '../../../../src/provider/libvirt/names.js';
import { windowsConfigFiles } from '../../../../src/provider/libvirt/windows/config-iso.js';
import { goldenImage } from '../../../../src/provider/libvirt/windows/golden-cache.js';
import {
  generateAdministratorPassword,
  installConfigFiles,
  specializeConfigFiles,
} from '../../../../src/provider/libvirt/windows/index.js';
import { windowsGoldenGuest } from '../../../../src/provider/libvirt/windows-golden-guest.js';

const iso = (sha: string) =>
  cachedImage({ source: 'https://isos.example/x.iso', sha256: sha.repeat(64) }, 'iso');
const base = {
  windowsIso: iso('a'),
  virtioIso: iso('b'),
  version: '2022' as const,
  image: { name: 'Windows Server 2022 SERVERDATACENTERCORE' },
};

function input(cluster: string): GuestInput {
  return {
    cluster,
    node: 'windows-workers-02',
    hypervisor: 'hypervisor-01',
    vcpus: 2,
    memoryMiB: 4096,
    diskGiB: 40,
    ip: '10.0.0.14',
    mac: macAddress(cluster, 'windows-workers-02'),
    network: `${cluster}.hypervisor-01.network`,
    dnsDomain: `${cluster}.kubemix.internal`,
    dataDir: '/var/lib/kubemix',
    publicKey: 'ssh-ed25519 AAAA kubemix',
    connection: 'winrm',
    images: {},
    windows: { version: '2022', computerName: 'windows-wo-b2c4' },
  };
}

describe('golden volume name', () => {
  it('is named after what it is made from, never after a cluster, and outside every cluster prefix', () => {
    const golden = goldenImage(base);
    expect(golden.volume).toMatch(/^golden-windows-2022-[0-9a-f]{16}\.qcow2$/);
    expect(goldenImage({ ...base }).volume).toBe(golden.volume);
    // Two clusters' overlays share it.
    const a = windowsGoldenGuest(input('lab'), golden).disks[0]!;
    const b = windowsGoldenGuest(input('lab-2'), golden).disks[0]!;
    expect(a.source).toEqual(b.source);
    expect(golden.volume.startsWith('lab.')).toBe(false);
  });

  it('changes with the Windows ISO, the version, the image, and the virtio-win ISO', () => {
    const names = new Set([
      goldenImage(base).volume,
      goldenImage({ ...base, windowsIso: iso('c') }).volume,
      goldenImage({ ...base, version: '2019' }).volume,
      goldenImage({ ...base, image: { index: 3 } }).volume,
      goldenImage({ ...base, virtioIso: iso('d') }).volume,
      goldenImage({ windowsIso: base.windowsIso, version: base.version, image: base.image }).volume,
    ]);
    expect(names.size).toBe(6);
    expect(goldenImage({ ...base, virtioIso: undefined }).key.devices).toBe('emulated');
  });
});

describe('a guest made from the golden volume', () => {
  it('has an overlay on the golden volume and a specialize config CD-ROM, no install media', () => {
    const golden = goldenImage(base);
    const guest = windowsGoldenGuest(input('lab'), golden);
    expect(guest.disks.map((d) => [d.volume, d.device, d.bus, d.target, d.source.kind])).toEqual([
      ['lab.windows-workers-02.disk.qcow2', 'disk', 'virtio', 'vda', 'golden-overlay'],
      ['lab.windows-workers-02.config.iso', 'cdrom', 'sata', 'sda', 'windows-config'],
    ]);
    expect(guest.disks[1]!.source).toMatchObject({ answers: 'specialize' });
    expect(guest.nicModel).toBe('virtio');
    const emulated = windowsGoldenGuest(input('lab'), goldenImage({ ...base, virtioIso: undefined }));
    expect(emulated.disks.map((d) => `${d.bus}:${d.target}`)).toEqual(['sata:sda', 'sata:sdb']);
    expect(emulated.nicModel).toBe('e1000e');
  });

  it('refuses a golden volume of another Windows version', () => {
    expect(() => windowsGoldenGuest(input('lab'), goldenImage({ ...base, version: '2019' }))).toThrow(
      /Windows 2022, the golden image golden-windows-2019-[0-9a-f]{16}\.qcow2 is 2019/,
    );
  });

  it('gets the specialize answer file on its config CD-ROM, the installer gets the install one', () => {
    const guest = {
      nodeName: 'windows-workers-02',
      computerName: 'windows-wo-b2c4',
      version: '2022' as const,
      image: { index: 3 },
      administratorPassword: generateAdministratorPassword(),
      devices: 'virtio' as const,
    };
    expect(windowsConfigFiles('specialize', guest)).toEqual(specializeConfigFiles(guest));
    expect(windowsConfigFiles('install', guest)).toEqual(installConfigFiles(guest));
    const answer = specializeConfigFiles(guest).find((f) => f.path === 'Autounattend.xml')!.content;
    expect(answer).not.toContain('windowsPE');
    expect(answer).toContain('<ComputerName>windows-wo-b2c4</ComputerName>');
    // The same first logon as an installed guest: WinRM, firewall, OpenSSH from the config CD-ROM.
    expect(answer).toContain('<FirstLogonCommands>');
    expect(specializeConfigFiles(guest).map((f) => f.path)).toEqual([
      'Autounattend.xml',
      'kubemix/first-logon.ps1',
    ]);
  });
});
