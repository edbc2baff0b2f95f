import { InternalError } from '../../errors/index.js';
import type { GuestDefinition } from './guest.js';
import type { GuestInput } from './guest-os.js';
import { volumeName } from './names.js';
import type { GoldenImage } from './windows/golden-cache.js';
import { defaultWindowsImage } from './windows/guest.js';
import { windowsDefinition } from './windows-guest.js';

/**
 * A Windows guest made from the golden volume (README, "Windows guests on libvirt"): its system
 * disk is a copy-on-write overlay on the cached generalized disk, and its config CD-ROM carries
 * the specialize answer file (new computer name, new Administrator password, the same first-logon
 * script as an installed guest). No Windows or virtio-win ISO: nothing is installed, and the
 * virtio drivers are already in the image (PnpSysprep kept them through generalize). The disk
 * and NIC models are the golden image's: Windows boots only from the disk controller it was
 * installed with.
 */
export function windowsGoldenGuest(input: GuestInput, golden: GoldenImage): GuestDefinition {
  const computerName = input.windows?.computerName;
  if (!computerName) throw new InternalError(`no computer name for ${input.node}`);
  const version = input.windows?.version ?? golden.key.version;
  if (version !== golden.key.version)
    throw new InternalError(
      `${input.node} is Windows ${version}, the golden image ${golden.volume} is ${golden.key.version}`,
    );
  const virtio = golden.key.devices === 'virtio';
  return windowsDefinition(input, virtio, [
    {
      volume: volumeName(input.cluster, input.node, 'disk', 'qcow2'),
      device: 'disk',
      bus: virtio ? 'virtio' : 'sata',
      target: virtio ? 'vda' : 'sda',
      bootOrder: 1,
      source: { kind: 'golden-overlay', golden, sizeGiB: input.diskGiB },
    },
    {
      volume: volumeName(input.cluster, input.node, 'config', 'iso'),
      device: 'cdrom',
      bus: 'sata',
      target: virtio ? 'sda' : 'sdb',
      source: {
        kind: 'windows-config',
        answers: 'specialize',
        config: {
          nodeName: input.node,
          computerName,
          version,
          image: defaultWindowsImage(version),
          devices: golden.key.devices,
          ...(input.connection === 'ssh' ? { sshAuthorizedKey: input.publicKey } : {}),
        },
      },
    },
  ]);
}
