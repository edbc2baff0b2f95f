import { XMLBuilder } from 'fast-xml-parser';
import type { WindowsDeviceModel } from './guest.js';
import { HYPERV_SPINLOCK_RETRIES, type HypervChoice } from './hyperv.js';

/** libvirt domain type: `kvm`, or `qemu` (TCG software emulation) when the preflight found KVM unusable. */
export type Accelerator = 'kvm' | 'qemu';

/** Everything the domain XML of a Windows guest depends on. */
export interface WindowsDomainOptions {
  /** libvirt domain name (carries the cluster name; chosen by the provider). */
  name: string;
  memoryMiB: number;
  vcpus: number;
  /** The same rule as the Linux guests: KVM when the preflight found it usable, else TCG. */
  accelerator: Accelerator;
  /** From {@link chooseHyperv} on the hypervisor's domain capabilities. */
  hyperv: HypervChoice;
  devices: WindowsDeviceModel;
  /** The guest's qcow2 disk (a blank volume, or an overlay on the golden image). */
  diskPath: string;
  /**
   * CD-ROM images in the order Windows must see them: the Windows ISO, then virtio-win (with
   * virtio devices), then the config ISO (virtio-drivers.ts relies on this order). Empty once
   * the install is done.
   */
  cdroms: readonly string[];
  /** Boot from the first CD-ROM when the disk holds no system yet (fresh installs only). */
  bootFromFirstCdrom: boolean;
  /** libvirt network of the cluster, and the guest's MAC on it (its DHCP reservation). */
  network: string;
  mac: string;
}

const builder = new XMLBuilder({
  ignoreAttributes: false,
  attributeNamePrefix: '@_',
  format: true,
  indentBy: '  ',
  suppressEmptyNode: true,
});

type Node = Record<string, unknown>;

const on = { '@_state': 'on' };

// virt-install's Windows clock (virtinst/domain/clock.py set_defaults, commit 2450354f3): the
// RTC in local time (libosinfo's clock for Windows) catching up, PIT delayed, no HPET, and the
// Hyper-V reference clock.
function clock(hyperv: HypervChoice): Node {
  const timers: Node[] = [
    { '@_name': 'rtc', '@_tickpolicy': 'catchup' },
    { '@_name': 'pit', '@_tickpolicy': 'delay' },
    { '@_name': 'hpet', '@_present': 'no' },
  ];
  if (hyperv.hypervClock) timers.push({ '@_name': 'hypervclock', '@_present': 'yes' });
  return { '@_offset': 'localtime', timer: timers };
}

function features(hyperv: HypervChoice): Node {
  const node: Node = { acpi: '', apic: '' };
  if (hyperv.features.length > 0) {
    const enlightenments: Node = { '@_mode': 'custom' };
    for (const feature of hyperv.features) {
      enlightenments[feature] =
        feature === 'spinlocks' ? { ...on, '@_retries': HYPERV_SPINLOCK_RETRIES } : { ...on };
    }
    node['hyperv'] = enlightenments;
  }
  return node;
}

// q35 has no IDE: without virtio drivers the disk is SATA and the NIC e1000e (what virt-install
// picks for Windows without virtio support); with them, virtio-blk and virtio-net. CD-ROMs are
// always SATA: sda/sdb... map to units 0, 1... of the q35 AHCI controller.
function disks(options: WindowsDomainOptions): Node[] {
  const virtio = options.devices === 'virtio';
  const sataTargets = 'abcdef';
  let unit = 0;
  const sata = () => `sd${sataTargets[unit++]!}`;
  if (options.cdroms.length + (virtio ? 0 : 1) > sataTargets.length)
    throw new TypeError(`too many CD-ROMs for one SATA controller: ${options.cdroms.length}`);
  const system: Node = {
    '@_type': 'file',
    '@_device': 'disk',
    driver: { '@_name': 'qemu', '@_type': 'qcow2', '@_discard': 'unmap' },
    source: { '@_file': options.diskPath },
    target: virtio ? { '@_dev': 'vda', '@_bus': 'virtio' } : { '@_dev': sata(), '@_bus': 'sata' },
    boot: { '@_order': 1 },
  };
  const cdroms = options.cdroms.map((path, i): Node => {
    const cdrom: Node = {
      '@_type': 'file',
      '@_device': 'cdrom',
      driver: { '@_name': 'qemu', '@_type': 'raw' },
      source: { '@_file': path },
      target: { '@_dev': sata(), '@_bus': 'sata' },
      readonly: '',
    };
    if (i === 0 && options.bootFromFirstCdrom) cdrom['boot'] = { '@_order': 2 };
    return cdrom;
  });
  return [system, ...cdroms];
}

/**
 * The libvirt domain XML of a Windows guest (libvirt "Domain XML format"): q35, SeaBIOS
 * (BIOS/MBR install, see autounattend.ts), localtime clock with virt-install's timers, Hyper-V
 * enlightenments as the hypervisor supports them, host CPU under KVM or QEMU's `maximum` model
 * under TCG (the default qemu64 model lacks CPU features 64-bit Windows requires), virtio or
 * SATA/e1000e devices, SATA CD-ROMs, VNC on the hypervisor's loopback only, no balloon.
 */
export function windowsDomainXml(options: WindowsDomainOptions): string {
  const domain: Node = {
    '@_type': options.accelerator,
    name: options.name,
    memory: { '@_unit': 'MiB', '#text': options.memoryMiB },
    vcpu: options.vcpus,
    os: { type: { '@_arch': 'x86_64', '@_machine': 'q35', '#text': 'hvm' } },
    features: features(options.hyperv),
    cpu: options.accelerator === 'kvm' ? { '@_mode': 'host-passthrough' } : { '@_mode': 'maximum' },
    clock: clock(options.hyperv),
    on_poweroff: 'destroy',
    on_reboot: 'restart',
    on_crash: 'destroy',
    devices: {
      disk: disks(options),
      interface: {
        '@_type': 'network',
        mac: { '@_address': options.mac },
        source: { '@_network': options.network },
        model: { '@_type': options.devices === 'virtio' ? 'virtio' : 'e1000e' },
      },
      input: { '@_type': 'tablet', '@_bus': 'usb' },
      graphics: { '@_type': 'vnc', '@_autoport': 'yes', '@_listen': '127.0.0.1' },
      video: { model: { '@_type': 'vga' } },
      memballoon: { '@_model': 'none' },
    },
  };
  return builder.build({ domain }) as string;
}
