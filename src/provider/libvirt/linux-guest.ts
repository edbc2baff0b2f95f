import { InternalError } from '../../errors/index.js';
import { nocloudSeed } from './cloud-init.js';
import type { GuestDefinition } from './guest.js';
import type { GuestInput } from './guest-os.js';
import { clusterFilesDir, domainName, volumeName } from './names.js';

/**
 * A Linux guest from a cloud image: a qcow2 overlay on the cached base image (virtio), and the
 * cloud-init NoCloud seed on an IDE CD-ROM of a `pc` machine. The Debian cloud kernel has no
 * AHCI driver: on q35 a SATA CD-ROM seed is silently ignored (RESEARCH.md, measured here).
 */
export function linuxGuest(input: GuestInput): GuestDefinition {
  const base = input.images.linux;
  if (!base) throw new InternalError(`no Linux base image for ${input.node}`);
  const domain = domainName(input.cluster, input.node);
  return {
    node: input.node,
    domain,
    os: 'linux',
    hypervisor: input.hypervisor,
    vcpus: input.vcpus,
    memoryMiB: input.memoryMiB,
    mac: input.mac,
    ip: input.ip,
    network: input.network,
    ...(input.mtu === undefined ? {} : { mtu: input.mtu }),
    machine: 'pc',
    nicModel: 'virtio',
    clock: 'utc',
    windowsMachine: false,
    disks: [
      {
        volume: volumeName(input.cluster, input.node, 'disk', 'qcow2'),
        device: 'disk',
        bus: 'virtio',
        target: 'vda',
        source: { kind: 'overlay', base, sizeGiB: input.diskGiB },
      },
      {
        volume: volumeName(input.cluster, input.node, 'seed', 'iso'),
        device: 'cdrom',
        bus: 'ide',
        target: 'hdc',
        source: {
          kind: 'config-iso',
          label: 'cidata',
          files: nocloudSeed({
            hostname: input.node,
            domain: input.dnsDomain,
            instanceId: domain,
            mac: input.mac,
            publicKey: input.publicKey,
          }),
        },
      },
    ],
    consoleLog: `${clusterFilesDir(input.dataDir, input.cluster)}/${input.node}.console.log`,
  };
}
