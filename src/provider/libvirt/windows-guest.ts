import { InternalError } from '../../errors/index.js';
import type { GuestDefinition, GuestDisk } from './guest.js';
import type { GuestInput } from './guest-os.js';
import { clusterFilesDir, domainName, volumeName } from './names.js';
import { defaultWindowsImage } from './windows/guest.js';

/**
 * A Windows guest installed from the Windows Server ISO (Kubeinit's layout, README "Windows
 * guests on libvirt"): a blank system disk, the cached Windows ISO and (when given) virtio-win as
 * CD-ROMs, and a config CD-ROM with Autounattend.xml and the first-logon script, written at
 * create time with the password kubemix generates then. q35 with SATA CD-ROMs (q35 has no IDE);
 * the disk and NIC are virtio only together with the virtio-win drivers (the windowsPE pass loads
 * them from the second CD-ROM, E:), else SATA and e1000e, which Windows drives itself. The disk
 * boots first (Setup's later passes run from it); the Windows ISO second, while the disk is blank.
 */
export function windowsGuest(input: GuestInput): GuestDefinition {
  const iso = input.images.windows;
  const computerName = input.windows?.computerName;
  if (!iso || !computerName) throw new InternalError(`no Windows ISO or computer name for ${input.node}`);
  const virtio = input.images.virtio;
  const version = input.windows?.version ?? '2022';
  let sata = 0;
  const nextSata = () => `sd${'abcdefgh'[sata++]}`;
  const system: GuestDisk = {
    volume: volumeName(input.cluster, input.node, 'disk', 'qcow2'),
    device: 'disk',
    bus: virtio ? 'virtio' : 'sata',
    target: virtio ? 'vda' : nextSata(),
    bootOrder: 1,
    source: { kind: 'blank', sizeGiB: input.diskGiB },
  };
  const disks: GuestDisk[] = [
    system,
    {
      volume: iso.volume,
      device: 'cdrom',
      bus: 'sata',
      target: nextSata(),
      bootOrder: 2,
      source: { kind: 'cached', image: iso },
    },
  ];
  if (virtio)
    disks.push({
      volume: virtio.volume,
      device: 'cdrom',
      bus: 'sata',
      target: nextSata(),
      source: { kind: 'cached', image: virtio },
    });
  disks.push({
    volume: volumeName(input.cluster, input.node, 'config', 'iso'),
    device: 'cdrom',
    bus: 'sata',
    target: nextSata(),
    source: {
      kind: 'windows-config',
      config: {
        nodeName: input.node,
        computerName,
        version,
        image: defaultWindowsImage(version),
        devices: virtio ? 'virtio' : 'emulated',
        ...(input.connection === 'ssh' ? { sshAuthorizedKey: input.publicKey } : {}),
      },
    },
  });
  return windowsDefinition(input, Boolean(virtio), disks);
}

/**
 * The domain of a Windows guest around its disks (shared by the install and golden-image paths):
 * q35, localtime clock, Hyper-V enlightenments, the NIC model matching the disks' drivers.
 */
export function windowsDefinition(input: GuestInput, virtio: boolean, disks: GuestDisk[]): GuestDefinition {
  return {
    node: input.node,
    domain: domainName(input.cluster, input.node),
    os: 'windows',
    hypervisor: input.hypervisor,
    vcpus: input.vcpus,
    memoryMiB: input.memoryMiB,
    mac: input.mac,
    ip: input.ip,
    network: input.network,
    ...(input.mtu === undefined ? {} : { mtu: input.mtu }),
    machine: 'q35',
    nicModel: virtio ? 'virtio' : 'e1000e',
    clock: 'localtime',
    windowsMachine: true,
    disks,
    consoleLog: `${clusterFilesDir(input.dataDir, input.cluster)}/${input.node}.console.log`,
  };
}
