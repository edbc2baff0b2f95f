import type { GuestDefinition, GuestDisk } from './guest.js';
import { HYPERV_SPINLOCK_RETRIES, type HypervChoice } from './windows/hyperv.js';
import { toXml, type XmlNode } from './xml.js';

/** Namespace of kubemix's domain metadata (which cluster a domain belongs to). */
export const KUBEMIX_METADATA_NS = 'https://kubemix.dev/libvirt/1';

/** `kvm` when the hypervisor's KVM can run guests, else `qemu` (TCG software emulation). */
export type Accelerator = 'kvm' | 'qemu';

/** What the domain XML depends on besides the guest definition. */
export interface DomainOptions {
  accel: Accelerator;
  pool: string;
  cluster: string;
  /**
   * Hyper-V enlightenments for a Windows machine, from the hypervisor's domain capabilities
   * (windows/hyperv.ts chooseHyperv); ignored for other guests.
   */
  hyperv?: HypervChoice;
}

function diskXml(disk: GuestDisk, pool: string): XmlNode {
  const cdrom = disk.device === 'cdrom';
  return {
    '@type': 'volume',
    '@device': disk.device,
    driver: cdrom
      ? { '@name': 'qemu', '@type': 'raw' }
      : { '@name': 'qemu', '@type': 'qcow2', '@discard': 'unmap' },
    source: { '@pool': pool, '@volume': disk.volume },
    target: { '@dev': disk.target, '@bus': disk.bus },
    ...(disk.bootOrder === undefined ? {} : { boot: { '@order': disk.bootOrder } }),
    ...(cdrom ? { readonly: {} } : {}),
  };
}

// virt-install's Windows clock (virt-manager virtinst/domain/clock.py set_defaults, commit
// 2450354f3): the RTC in local time catching up, PIT delayed, no HPET, and the Hyper-V clock.
function clockXml(guest: GuestDefinition, hyperv: HypervChoice | undefined): XmlNode {
  if (guest.clock === 'utc') return { '@offset': 'utc' };
  const timer: XmlNode[] = [
    { '@name': 'rtc', '@tickpolicy': 'catchup' },
    { '@name': 'pit', '@tickpolicy': 'delay' },
    { '@name': 'hpet', '@present': 'no' },
  ];
  if (hyperv?.hypervClock) timer.push({ '@name': 'hypervclock', '@present': 'yes' });
  return { '@offset': 'localtime', timer };
}

function featuresXml(guest: GuestDefinition, hyperv: HypervChoice | undefined): XmlNode {
  const features: XmlNode = { acpi: {}, apic: {} };
  if (guest.windowsMachine && hyperv && hyperv.features.length > 0) {
    const enlightenments: XmlNode = { '@mode': 'custom' };
    for (const feature of hyperv.features)
      enlightenments[feature] =
        feature === 'spinlocks'
          ? { '@state': 'on', '@retries': HYPERV_SPINLOCK_RETRIES }
          : { '@state': 'on' };
    features['hyperv'] = enlightenments;
  }
  return features;
}

function cpuXml(guest: GuestDefinition, accel: Accelerator): XmlNode | undefined {
  if (accel === 'kvm') return { '@mode': 'host-passthrough' };
  // Under TCG QEMU's default qemu64 model lacks CPU features 64-bit Windows requires; Server 2025
  // also needs SSE4.2 and POPCNT (Microsoft Learn, "Hardware requirements for Windows Server"),
  // which `maximum` has under TCG and host-passthrough passes through under KVM.
  return guest.windowsMachine ? { '@mode': 'maximum' } : undefined;
}

/**
 * The libvirt domain XML of a guest (libvirt formatdomain.html). The one builder for every guest
 * OS: disks refer to pool volumes, so the XML holds no hypervisor paths except the console log;
 * the serial console goes to a file (the cloud images log to ttyS0). `qemu` (TCG) gets QEMU's
 * default CPU model (Windows: `maximum`); `kvm` passes the host CPU through. A Windows machine
 * adds virt-install's clock and Hyper-V choice, boots by per-device order (the disk, then the
 * Windows ISO while the disk is blank), a VNC console on the hypervisor's loopback and no balloon.
 *
 * A guest on a network spanning hypervisors gets the tunnel's MTU on its `<interface>` (libvirt
 * formatdomain.html, "MTU configuration", since 3.1.0): libvirt sets it on the tap device and, for
 * a virtio NIC, passes QEMU's virtio-net `host_mtu`, which offers the guest VIRTIO_NET_F_MTU; Linux
 * virtio_net adopts it as the NIC's MTU and maximum when it probes the device
 * (drivers/net/virtio_net.c, virtnet_probe). The network's own `<mtu>` (bridge, taps, a DHCP
 * option) did not reach the test guest's NIC: measured, it stayed at 1500. Windows' NetKVM reads the
 * same field (virtio-win/kvm-guest-drivers-windows#142, "MTU report"); an e1000e NIC (Windows
 * without virtio-win) has no such channel and keeps 1500 (kubevirt/kubevirt#18845).
 */
export function domainXml(guest: GuestDefinition, options: DomainOptions): string {
  const hyperv = guest.windowsMachine ? options.hyperv : undefined;
  const perDeviceBoot = guest.disks.some((d) => d.bootOrder !== undefined);
  const cpu = cpuXml(guest, options.accel);
  const devices: XmlNode = {
    disk: guest.disks.map((d) => diskXml(d, options.pool)),
    interface: {
      '@type': 'network',
      mac: { '@address': guest.mac },
      source: { '@network': guest.network },
      model: { '@type': guest.nicModel },
      ...(guest.mtu === undefined ? {} : { mtu: { '@size': guest.mtu } }),
    },
    serial: { '@type': 'file', source: { '@path': guest.consoleLog }, target: { '@port': 0 } },
  };
  if (guest.windowsMachine) {
    devices['input'] = { '@type': 'tablet', '@bus': 'usb' };
    devices['graphics'] = { '@type': 'vnc', '@autoport': 'yes', '@listen': '127.0.0.1' };
    devices['video'] = { model: { '@type': 'vga' } };
    devices['memballoon'] = { '@model': 'none' };
  }
  devices['rng'] = { '@model': 'virtio', backend: { '@model': 'random', '#text': '/dev/urandom' } };
  const node: XmlNode = {
    '@type': options.accel,
    name: guest.domain,
    metadata: {
      'kubemix:cluster': { '@xmlns:kubemix': KUBEMIX_METADATA_NS, '#text': options.cluster },
    },
    memory: { '@unit': 'MiB', '#text': guest.memoryMiB },
    vcpu: guest.vcpus,
    os: {
      type: { '@arch': 'x86_64', '@machine': guest.machine, '#text': 'hvm' },
      ...(perDeviceBoot ? {} : { boot: { '@dev': 'hd' } }),
    },
    features: featuresXml(guest, hyperv),
    ...(cpu ? { cpu } : {}),
    clock: clockXml(guest, hyperv),
    on_poweroff: 'destroy',
    on_reboot: 'restart',
    on_crash: 'destroy',
    devices,
  };
  return toXml('domain', node);
}
