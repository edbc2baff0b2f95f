import type { GuestDefinition, GuestDisk } from './guest.js';
import { toXml, type XmlNode } from './xml.js';

/** Namespace of kubemix's domain metadata (which cluster a domain belongs to). */
export const KUBEMIX_METADATA_NS = 'https://kubemix.dev/libvirt/1';

/** `kvm` when the hypervisor's KVM can run guests, else `qemu` (TCG software emulation). */
export type Accelerator = 'kvm' | 'qemu';

function diskXml(disk: GuestDisk, pool: string): XmlNode {
  const cdrom = disk.device === 'cdrom';
  const format = cdrom ? 'raw' : 'qcow2';
  return {
    '@type': 'volume',
    '@device': disk.device,
    driver: { '@name': 'qemu', '@type': format },
    source: { '@pool': pool, '@volume': disk.volume },
    target: { '@dev': disk.target, '@bus': disk.bus },
    ...(cdrom ? { readonly: {} } : {}),
  };
}

/**
 * The libvirt domain XML of a guest (libvirt formatdomain.html). Disks refer to pool volumes, so
 * the XML holds no hypervisor paths except the console log. The serial console goes to a file
 * (the cloud images log to ttyS0). `qemu` (TCG) gets QEMU's default CPU model; `kvm` passes the
 * host CPU through.
 */
export function domainXml(
  guest: GuestDefinition,
  options: { accel: Accelerator; pool: string; cluster: string },
): string {
  const features: XmlNode = { acpi: {}, apic: {} };
  if (guest.hyperv) {
    features['hyperv'] = {
      '@mode': 'custom',
      relaxed: { '@state': 'on' },
      vapic: { '@state': 'on' },
      spinlocks: { '@state': 'on', '@retries': 8191 },
    };
  }
  const node: XmlNode = {
    '@type': options.accel,
    name: guest.domain,
    metadata: {
      'kubemix:cluster': { '@xmlns:kubemix': KUBEMIX_METADATA_NS, '#text': options.cluster },
    },
    memory: { '@unit': 'MiB', '#text': guest.memoryMiB },
    vcpu: guest.vcpus,
    os: { type: { '@arch': 'x86_64', '@machine': guest.machine, '#text': 'hvm' }, boot: { '@dev': 'hd' } },
    features,
    ...(options.accel === 'kvm' ? { cpu: { '@mode': 'host-passthrough' } } : {}),
    clock: { '@offset': guest.clock },
    on_poweroff: 'destroy',
    on_reboot: 'restart',
    on_crash: 'destroy',
    devices: {
      disk: guest.disks.map((d) => diskXml(d, options.pool)),
      interface: {
        '@type': 'network',
        mac: { '@address': guest.mac },
        source: { '@network': guest.network },
        model: { '@type': guest.nicModel },
      },
      serial: { '@type': 'file', source: { '@path': guest.consoleLog }, target: { '@port': 0 } },
      rng: { '@model': 'virtio', backend: { '@model': 'random', '#text': '/dev/urandom' } },
    },
  };
  return toXml('domain', node);
}
