import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { afterAll, describe, expect, it } from 'vitest';
import {
  chooseHyperv,
  supportedHypervFeatures,
  type WindowsDomainOptions,
  windowsDomainXml,
} from '../../../../src/provider/libvirt/windows/index.js';

// Domain capabilities as this project's Debian 12 machines report them (libvirt 9.0.0, QEMU 7.2:
// `virsh -c 'qemu:///embed?root=DIR' domcapabilities --virttype qemu|kvm --machine q35`).
const fixture = (name: string) =>
  readFileSync(new URL(`../../../../fixtures/libvirt/${name}`, import.meta.url), 'utf8');
const TCG_CAPS = fixture('domcapabilities-qemu-tcg-q35.xml');
const KVM_CAPS = fixture('domcapabilities-kvm-q35.xml');

const work = mkdtempSync(join(tmpdir(), 'kubemix-windows-domain-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

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

function options(over: Partial<WindowsDomainOptions> = {}): WindowsDomainOptions {
  return {
    name: 'lab.windows-workers-01',
    memoryMiB: 4096,
    vcpus: 2,
    accelerator: 'kvm',
    hyperv: chooseHyperv(ALL),
    devices: 'virtio',
    diskPath: '/var/lib/kubemix/pool/lab.windows-workers-01.disk.qcow2',
    cdroms: [
      '/var/lib/kubemix/pool/ws2022.iso',
      '/var/lib/kubemix/pool/virtio-win.iso',
      '/var/lib/kubemix/pool/lab.windows-workers-01.config.iso',
    ],
    bootFromFirstCdrom: true,
    network: 'lab.network',
    mac: '52:54:00:12:34:56',
    ...over,
  };
}

const VARIANTS: Record<string, WindowsDomainOptions> = {
  'kvm-virtio-install': options(),
  'tcg-emulated-install': options({
    accelerator: 'qemu',
    hyperv: chooseHyperv(supportedHypervFeatures(TCG_CAPS)),
    devices: 'emulated',
    cdroms: ['/var/lib/kubemix/pool/ws2022.iso', '/var/lib/kubemix/pool/lab.w.config.iso'],
  }),
  'kvm-installed': options({ cdroms: [], bootFromFirstCdrom: false }),
  'no-hyperv': options({ hyperv: chooseHyperv([]) }),
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

describe('windowsDomainXml', () => {
  it("is well-formed and valid against libvirt's domain schema (virt-xml-validate)", () => {
    for (const [name, variant] of Object.entries(VARIANTS)) {
      const xml = windowsDomainXml(variant);
      expect(XMLValidator.validate(xml), name).toBe(true);
      const file = join(work, `${name}.xml`);
      writeFileSync(file, xml);
      // Throws (with virt-xml-validate's message) when the document does not validate.
      execFileSync('virt-xml-validate', [file, 'domain'], { stdio: 'pipe' });
    }
  });

  it("is accepted by libvirt's test driver (virsh define)", () => {
    const files = Object.keys(VARIANTS).map((name, i) => {
      const file = join(work, `define-${name}.xml`);
      writeFileSync(file, windowsDomainXml({ ...VARIANTS[name]!, name: `kubemix-test-${i}` }));
      return file;
    });
    const out = execFileSync('virsh', ['-c', 'test:///default', files.map((f) => `define ${f}`).join('; ')], {
      encoding: 'utf8',
    });
    expect(out.match(/Domain '[^']+' defined from/g)).toHaveLength(files.length);
  });

  it("has what Windows needs: q35, localtime clock with virt-install's timers, the chosen enlightenments", () => {
    const domain = parse(windowsDomainXml(options()));
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
    expect(parse(windowsDomainXml(VARIANTS['no-hyperv']!)).features.hyperv).toBeUndefined();
  });

  it('uses virtio disk and NIC only with virtio devices, else SATA and e1000e; CD-ROMs always on SATA', () => {
    const virtio = parse(windowsDomainXml(options()));
    expect(virtio.devices.disk[0].target).toEqual({ '@_dev': 'vda', '@_bus': 'virtio' });
    expect(virtio.devices.interface.model['@_type']).toBe('virtio');
    expect(virtio.devices.disk.slice(1).map((d: Domain) => d.target)).toEqual([
      { '@_dev': 'sda', '@_bus': 'sata' },
      { '@_dev': 'sdb', '@_bus': 'sata' },
      { '@_dev': 'sdc', '@_bus': 'sata' },
    ]);
    const emulated = parse(windowsDomainXml(VARIANTS['tcg-emulated-install']!));
    expect(emulated['@_type']).toBe('qemu');
    expect(emulated.cpu['@_mode']).toBe('maximum');
    expect(emulated.devices.disk[0].target).toEqual({ '@_dev': 'sda', '@_bus': 'sata' });
    expect(emulated.devices.interface.model['@_type']).toBe('e1000e');
    expect(emulated.devices.disk.slice(1).map((d: Domain) => d.target['@_bus'])).toEqual(['sata', 'sata']);
  });

  it('boots the disk first and the Windows ISO second while installing, the disk alone afterwards', () => {
    const install = parse(windowsDomainXml(options()));
    expect(install.devices.disk.map((d: Domain) => d.boot?.['@_order'])).toEqual([
      '1',
      '2',
      undefined,
      undefined,
    ]);
    const installed = parse(windowsDomainXml(VARIANTS['kvm-installed']!));
    expect(installed.devices.disk).toHaveLength(1);
  });
});
