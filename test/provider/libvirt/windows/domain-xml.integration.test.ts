import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { describe, expect, it } from 'vitest';
import { type Accelerator, domainXml } from '../../../../src/provider/libvirt/domain-xml.js';
import type { GuestInput } from '../../../../src/provider/libvirt/guest-os.js';
import { cachedImage } from '../../../../src/provider/libvirt/image.js';
import { macAddress } from '../../../../src/provider/libvirt/names.js';
import {
  chooseHyperv,
  type HypervChoice,
  supportedHypervFeatures,
} from '../../../../src/provider/libvirt/windows/index.js';
import { windowsGuest } from '../../../../src/provider/libvirt/windows-guest.js';
import type { WindowsVersion } from '../../../../src/types/windows.js';
import { testTempDirSync } from '../../../helpers/temp.js';

// Domain capabilities as this project's Debian 12 machines report them (libvirt 9.0.0, QEMU 7.2:
// `virsh -c 'qemu:///embed?root=DIR' domcapabilities --virttype qemu|kvm --machine q35`).
const fixture = (name: string) =>
  readFileSync(new URL(`../../../../fixtures/libvirt/${name}`, import.meta.url), 'utf8');
const TCG_CAPS = fixture('domcapabilities-qemu-tcg-q35.xml');
const KVM_CAPS = fixture('domcapabilities-kvm-q35.xml');

const work = testTempDirSync('windows-domain');

const ALL = [
  'relaxed',
  'vapic',
  'spinlocks',
  'vpindex',
  'runtime',
  'synic',
  'stimer',
  'frequencies',
  'tlbflush',
  'ipi',
];

const windowsIso = cachedImage({ source: 'https://isos.example/ws2022.iso', sha256: 'a'.repeat(64) }, 'iso');
const virtioIso = cachedImage(
  { source: 'https://isos.example/virtio-win.iso', sha256: 'b'.repeat(64) },
  'iso',
);

/** A Windows guest as the provider builds it: with the virtio-win ISO, or without. */
function guest(virtio: boolean, version: WindowsVersion = '2022') {
  const input: GuestInput = {
    cluster: 'lab',
    node: 'windows-workers-01',
    hypervisor: 'hypervisor-01',
    vcpus: 2,
    memoryMiB: 4096,
    diskGiB: 40,
    ip: '10.0.0.13',
    mac: macAddress('lab', 'windows-workers-01'),
    network: 'lab.hypervisor-01.network',
    dnsDomain: 'lab.kubemix.internal',
    dataDir: '/var/lib/kubemix',
    publicKey: 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIHjV kubemix@lab',
    connection: 'winrm',
    images: virtio ? { windows: windowsIso, virtio: virtioIso } : { windows: windowsIso },
    windows: { version, computerName: 'windows-wo-1a2b' },
  };
  return windowsGuest(input);
}

const xmlOf = (virtio: boolean, accel: Accelerator, hyperv: HypervChoice, version?: WindowsVersion) =>
  domainXml(guest(virtio, version), { accel, pool: 'kubemix', cluster: 'lab', hyperv });

const VARIANTS: Record<string, string> = {
  'kvm-virtio': xmlOf(true, 'kvm', chooseHyperv(ALL)),
  'tcg-emulated': xmlOf(false, 'qemu', chooseHyperv(supportedHypervFeatures(TCG_CAPS))),
  'no-hyperv': xmlOf(true, 'kvm', chooseHyperv([])),
  'tcg-virtio-2025': xmlOf(true, 'qemu', chooseHyperv(supportedHypervFeatures(TCG_CAPS)), '2025'),
  'kvm-emulated-2025': xmlOf(false, 'kvm', chooseHyperv(ALL), '2025'),
};

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '@_',
  isArray: (n) => ['disk', 'timer'].includes(n),
});
// biome-ignore lint/suspicious/noExplicitAny: parsed libvirt XML, navigated by libvirt's element names
type Domain = Record<string, any>;
const parse = (xml: string) => (parser.parse(xml) as { domain: Domain }).domain;

describe('chooseHyperv (virt-install rule)', () => {
  it('turns on what this machine lists: spinlocks only, under TCG and KVM alike (libvirt 9.0)', () => {
    expect(supportedHypervFeatures(TCG_CAPS)).toEqual(['spinlocks', 'vendor_id']);
    expect(chooseHyperv(supportedHypervFeatures(TCG_CAPS)).features).toEqual(['spinlocks']);
    expect(chooseHyperv(supportedHypervFeatures(KVM_CAPS)).features).toEqual(['spinlocks']);
  });

  it('turns on every listed feature whose prerequisites are on, and nothing without vpindex', () => {
    expect(chooseHyperv(ALL).features).toEqual(ALL);
    expect(chooseHyperv(ALL.filter((f) => f !== 'vpindex')).features).toEqual([
      'relaxed',
      'vapic',
      'spinlocks',
      'runtime',
      'frequencies',
    ]);
    expect(chooseHyperv(ALL.filter((f) => f !== 'synic')).features).not.toContain('stimer');
  });

  it('finds no features when Hyper-V is unsupported', () => {
    expect(
      supportedHypervFeatures(
        "<domainCapabilities><features><hyperv supported='no'/></features></domainCapabilities>",
      ),
    ).toEqual([]);
  });
});

describe('domain XML of a Windows guest (the one builder, domain-xml.ts)', () => {
  it("is well-formed and valid against libvirt's domain schema (virt-xml-validate)", () => {
    for (const [name, xml] of Object.entries(VARIANTS)) {
      expect(XMLValidator.validate(xml), name).toBe(true);
      const file = join(work, `${name}.xml`);
      writeFileSync(file, xml);
      // Throws (with virt-xml-validate's message) when the document does not validate.
      execFileSync('virt-xml-validate', [file, 'domain'], { stdio: 'pipe' });
    }
  });

  it("is accepted by libvirt's test driver (virsh define)", () => {
    const files = Object.entries(VARIANTS).map(([name, xml], i) => {
      const file = join(work, `define-${name}.xml`);
      writeFileSync(
        file,
        xml.replace('<name>lab.windows-workers-01</name>', `<name>kubemix-test-${i}</name>`),
      );
      return file;
    });
    const out = execFileSync('virsh', ['-c', 'test:///default', files.map((f) => `define ${f}`).join('; ')], {
      encoding: 'utf8',
    });
    expect(out.match(/Domain '[^']+' defined from/g)).toHaveLength(files.length);
  });

  it("has what Windows needs: q35, localtime clock with virt-install's timers, the chosen enlightenments", () => {
    const domain = parse(VARIANTS['kvm-virtio']!);
    expect(domain.os.type['@_machine']).toBe('q35');
    expect(domain.clock['@_offset']).toBe('localtime');
    expect(domain.clock.timer).toEqual([
      { '@_name': 'rtc', '@_tickpolicy': 'catchup' },
      { '@_name': 'pit', '@_tickpolicy': 'delay' },
      { '@_name': 'hpet', '@_present': 'no' },
      { '@_name': 'hypervclock', '@_present': 'yes' },
    ]);
    expect(Object.keys(domain.features.hyperv).filter((k) => !k.startsWith('@_'))).toEqual(ALL);
    expect(domain.features.hyperv.spinlocks).toEqual({ '@_state': 'on', '@_retries': '8191' });
    expect(parse(VARIANTS['no-hyperv']!).features.hyperv).toBeUndefined();
    expect(domain.devices.graphics).toEqual({
      '@_type': 'vnc',
      '@_autoport': 'yes',
      '@_listen': '127.0.0.1',
    });
    expect(domain.devices.memballoon).toEqual({ '@_model': 'none' });
  });

  it('uses virtio disk and NIC only with the virtio-win ISO, else SATA and e1000e; CD-ROMs always on SATA', () => {
    const virtio = parse(VARIANTS['kvm-virtio']!);
    expect(virtio.devices.disk[0].target).toEqual({ '@_dev': 'vda', '@_bus': 'virtio' });
    expect(virtio.devices.interface.model['@_type']).toBe('virtio');
    expect(
      virtio.devices.disk.slice(1).map((d: Domain) => [d.target['@_dev'], d.source['@_volume']]),
    ).toEqual([
      ['sda', windowsIso.volume],
      ['sdb', virtioIso.volume],
      ['sdc', 'lab.windows-workers-01.config.iso'],
    ]);
    const emulated = parse(VARIANTS['tcg-emulated']!);
    expect(emulated['@_type']).toBe('qemu');
    expect(emulated.cpu['@_mode']).toBe('maximum');
    expect(emulated.devices.disk[0].target).toEqual({ '@_dev': 'sda', '@_bus': 'sata' });
    expect(emulated.devices.interface.model['@_type']).toBe('e1000e');
    expect(emulated.devices.disk.slice(1).map((d: Domain) => d.target['@_bus'])).toEqual(['sata', 'sata']);
  });

  it('boots the disk first and the Windows ISO second (Setup restarts from the disk)', () => {
    const install = parse(VARIANTS['kvm-virtio']!);
    expect(install.devices.disk.map((d: Domain) => d.boot?.['@_order'])).toEqual([
      '1',
      '2',
      undefined,
      undefined,
    ]);
    expect(install.os.boot).toBeUndefined();
  });

  it('builds Server 2025 as 2022: SeaBIOS (no OVMF loader, no TPM), its CPU (maximum under TCG), a 2025 config CD', () => {
    // Microsoft Learn, "Hardware requirements for Windows Server": UEFI with Secure Boot and a TPM
    // are "only required for certain features"; 2025 adds SSE4.2 and POPCNT to the CPU minimum.
    for (const [name, compare] of [
      ['tcg-virtio-2025', xmlOf(true, 'qemu', chooseHyperv(supportedHypervFeatures(TCG_CAPS)))],
      ['kvm-emulated-2025', xmlOf(false, 'kvm', chooseHyperv(ALL))],
    ] as const) {
      const domain = parse(VARIANTS[name]!);
      expect(domain.os.loader, name).toBeUndefined();
      expect(domain.os['@_firmware'], name).toBeUndefined();
      expect(domain.devices.tpm, name).toBeUndefined();
      expect(domain, name).toEqual(parse(compare));
    }
    expect(parse(VARIANTS['tcg-virtio-2025']!).cpu['@_mode']).toBe('maximum');
    const config = guest(true, '2025').disks.find((d) => d.source.kind === 'windows-config');
    expect(config?.source).toMatchObject({
      kind: 'windows-config',
      config: {
        version: '2025',
        image: { name: 'Windows Server 2025 SERVERDATACENTERCORE' },
        devices: 'virtio',
      },
    });
  });

  it('never carries the Administrator password: the config ISO is made at create time', () => {
    const config = guest(false).disks.find((d) => d.source.kind === 'windows-config');
    expect(config?.source).toMatchObject({
      kind: 'windows-config',
      config: { computerName: 'windows-wo-1a2b' },
    });
    expect(JSON.stringify(guest(false))).not.toMatch(/administratorPassword/);
  });
});
