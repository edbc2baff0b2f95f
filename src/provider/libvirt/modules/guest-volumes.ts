import type { ModuleAction } from '../../../modules/types.js';
import { shQuote } from '../../../quote/index.js';
import type { CommandResult } from '../../../types/command-result.js';
import type { GuestDefinition, GuestDisk } from '../guest.js';
import { isoScript } from '../iso.js';
import { overlayVolumeXml } from '../storage-xml.js';
import { windowsConfigFiles } from '../windows/config-iso.js';
import { goldenVolumeTest } from '../windows/golden-cache.js';
import { type LibvirtCommon, reason, virsh } from './common.js';

// The volumes of a guest libvirt_guests makes: overlays, blank disks and first-boot ISOs.

/** What making a volume needs of libvirt_guests' arguments. */
export type VolumeArgs = Pick<LibvirtCommon, 'uri' | 'pool'> & { passwords: Record<string, unknown> };

type Step = Generator<ModuleAction, string | undefined, CommandResult>;

/** Makes a copy-on-write overlay volume on a base file of the pool; returns why not, or undefined. */
function* makeOverlay(
  args: VolumeArgs,
  dir: string,
  volume: string,
  base: Omit<Parameters<typeof overlayVolumeXml>[0], 'name'>,
): Step {
  const file = `${dir}/${volume}.xml`;
  const put = yield {
    kind: 'put',
    remotePath: file,
    content: overlayVolumeXml({ name: volume, ...base }),
    mode: 0o644,
  };
  if (put.failed) return `cannot write ${file}: ${reason(put)}`;
  const made = yield { kind: 'exec', command: virsh(args.uri, 'vol-create', args.pool, file) };
  return made.failed ? `cannot create volume ${volume}: ${reason(made)}` : undefined;
}

/** Makes one disk's volume; returns why not, or undefined. */
export function* makeVolume(
  args: VolumeArgs,
  poolPath: string,
  dir: string,
  guest: GuestDefinition,
  disk: GuestDisk,
): Step {
  const source = disk.source;
  switch (source.kind) {
    case 'cached':
      return undefined;
    case 'overlay':
      return yield* makeOverlay(args, dir, disk.volume, {
        sizeGiB: source.sizeGiB,
        basePath: `${poolPath}/${source.base.volume}`,
        baseFormat: source.base.format,
      });
    case 'golden-overlay': {
      // The golden volume is captured on this hypervisor, never downloaded: without it the overlay
      // would fail inside qemu-img with a message that does not say why.
      const base = `${poolPath}/${source.golden.volume}`;
      const there = yield { kind: 'exec', command: goldenVolumeTest(poolPath, source.golden.volume) };
      if (there.failed)
        return `the golden Windows volume ${source.golden.volume} is not in the pool (${base}): it is captured from the first Windows guest`;
      return yield* makeOverlay(args, dir, disk.volume, {
        sizeGiB: source.sizeGiB,
        basePath: base,
        baseFormat: 'qcow2',
      });
    }
    case 'blank': {
      const made = yield {
        kind: 'exec',
        command: virsh(
          args.uri,
          'vol-create-as',
          args.pool,
          disk.volume,
          `${source.sizeGiB}G`,
          '--format',
          'qcow2',
        ),
      };
      return made.failed ? `cannot create volume ${disk.volume}: ${reason(made)}` : undefined;
    }
    case 'config-iso':
      return yield* makeConfigIso(args, poolPath, disk.volume, {
        staging: `${dir}/${guest.node}.${source.label}`,
        label: source.label,
        files: Object.entries(source.files).map(([path, content]) => ({ path, content })),
        secret: false,
      });
    case 'windows-config': {
      const password = args.passwords[guest.node];
      if (typeof password !== 'string' || password === '')
        return 'no Administrator password was generated for it (libvirt_windows_passwords)';
      return yield* makeConfigIso(args, poolPath, disk.volume, {
        staging: `${dir}/${guest.node}.config`,
        label: 'KUBEMIX',
        // An installed guest's answers install Windows; a golden overlay's only specialize it.
        files: windowsConfigFiles(source.answers ?? 'install', {
          ...source.config,
          administratorPassword: password,
        }),
        secret: true,
      });
    }
  }
}

/**
 * Writes files into a fresh staging directory on the hypervisor (0700, files 0600 when they hold
 * a secret) and makes the ISO volume from them; the staging directory goes once the ISO exists.
 */
function* makeConfigIso(
  args: VolumeArgs,
  poolPath: string,
  volume: string,
  iso: { staging: string; label: string; files: Array<{ path: string; content: string }>; secret: boolean },
): Step {
  const dirs = [...new Set(iso.files.map((f) => f.path.split('/').slice(0, -1).join('/')).filter(Boolean))];
  const staged = yield {
    kind: 'exec',
    command: `rm -rf -- ${shQuote(iso.staging)} && (umask 077 && mkdir -p ${[iso.staging, ...dirs.map((d) => `${iso.staging}/${d}`)].map((d) => shQuote(d)).join(' ')})`,
  };
  if (staged.failed) return `cannot make ${iso.staging}: ${reason(staged)}`;
  for (const file of iso.files) {
    const path = `${iso.staging}/${file.path}`;
    const put = yield {
      kind: 'put',
      remotePath: path,
      content: file.content,
      mode: iso.secret ? 0o600 : 0o644,
    };
    if (put.failed) return `cannot write ${path}: ${reason(put)}`;
  }
  const made = yield {
    kind: 'exec',
    command: `${isoScript({ source: iso.staging, output: `${poolPath}/${volume}`, label: iso.label, secret: iso.secret })}\n${virsh(args.uri, 'pool-refresh', args.pool)} >/dev/null`,
  };
  return made.failed ? `cannot make ${volume}: ${reason(made)}` : undefined;
}
