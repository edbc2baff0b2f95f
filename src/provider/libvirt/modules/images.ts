import type { RawArgs } from '../../../modules/args.js';
import { stepBuilder } from '../../../modules/step-builder.js';
import type { Module, ModuleRun } from '../../../modules/types.js';
import { shQuote } from '../../../quote/index.js';
import type { CommandResult } from '../../../types/command-result.js';
import type { CachedImage } from '../image.js';
import { goldenVolumeTest } from '../windows/golden-cache.js';
import { forThisHypervisor, type LibvirtCommon, parseCommon, poolPathFrom, reason, virsh } from './common.js';

/** A cached image as prepare-provider asks for it. */
export type PreparedImage = CachedImage & {
  /**
   * A golden volume (windows/golden-cache.ts): the image is needed only to install the guest that
   * becomes it, so it is not fetched when the pool has that volume.
   */
  onlyWithout?: string;
};

/** libvirt_images' arguments (the plan's and the module's one type). */
export interface ImagesArgs extends LibvirtCommon {
  /** The images each hypervisor caches, by hypervisor name. */
  hypervisors: Record<string, PreparedImage[]>;
}

/** Makes kubemix's directory pool when it is missing (libvirt's own `pool-define-as ... dir`). */
function ensurePoolScript(args: LibvirtCommon): string {
  const pool = args.pool;
  return [
    `if ! ${virsh(args.uri, 'pool-info', pool)} >/dev/null 2>&1; then`,
    `  mkdir -p ${shQuote(`${args.dataDir}/pool`)} && chmod 0711 ${shQuote(args.dataDir)} ${shQuote(`${args.dataDir}/pool`)}`,
    `  ${virsh(args.uri, 'pool-define-as', pool, 'dir', '--target', `${args.dataDir}/pool`)} >/dev/null`,
    'fi',
    `if ! ${virsh(args.uri, 'pool-info', pool)} | grep -q '^State: *running'; then ${virsh(args.uri, 'pool-start', pool)} >/dev/null; fi`,
    `${virsh(args.uri, 'pool-autostart', pool)} >/dev/null`,
    `${virsh(args.uri, 'pool-dumpxml', pool)}`,
  ].join('\n');
}

const algorithmTool = { sha256: 'sha256sum', sha512: 'sha512sum' } as const;

/**
 * `libvirt_images`: kubemix's storage pool exists (a directory pool, made when missing) and holds
 * every image the guests placed here need, each under a name made of its digest. An image already
 * there is used as it is (a second cluster downloads nothing); a missing one is downloaded by the
 * hypervisor (URL) or copied from the machine running kubemix (path) to a temporary name, checked
 * against its digest, and only then moved into place. A digest that does not match is the user's
 * input: the file is removed and the run stops (exit 2). An image marked `onlyWithout` a golden
 * volume (the Windows and virtio-win ISOs with `windows.goldenImage`) is left alone when that
 * volume is in the pool: create-hosts, with the same test, then makes only overlays on it.
 * Reports `downloadedBytes`, `cached` and `skipped` (the images not fetched for a golden volume).
 */
export const libvirtImagesModule: Module<ImagesArgs> = {
  name: 'libvirt_images',
  os: 'linux',
  parseArgs(raw: RawArgs) {
    return {
      ...parseCommon('libvirt_images', raw, ['hypervisors']),
      hypervisors: raw['hypervisors'] as ImagesArgs['hypervisors'],
    };
  },
  *run(args, context): ModuleRun {
    const images = forThisHypervisor<PreparedImage[]>('libvirt_images', args.hypervisors, context) ?? [];
    const pool = yield { kind: 'exec', command: ensurePoolScript(args) };
    if (pool.failed)
      return {
        changed: false,
        failed: true,
        msg: `cannot prepare the storage pool ${args.pool}: ${reason(pool)}`,
      };
    const poolPath = poolPathFrom(pool.stdout);
    if (!poolPath)
      return {
        changed: false,
        failed: true,
        msg: `storage pool ${args.pool} has no target path (not a directory pool?)`,
      };
    let changed = false;
    let downloadedBytes = 0;
    const cached: string[] = [];
    const skipped: string[] = [];
    const goldenThere = new Map<string, boolean>();
    for (const image of images) {
      if (image.onlyWithout) {
        let there = goldenThere.get(image.onlyWithout);
        if (there === undefined) {
          const test = yield { kind: 'exec', command: goldenVolumeTest(poolPath, image.onlyWithout) };
          there = !test.failed;
          goldenThere.set(image.onlyWithout, there);
        }
        if (there) {
          skipped.push(image.volume);
          continue;
        }
      }
      const target = `${poolPath}/${image.volume}`;
      const present = yield { kind: 'exec', command: `test -s ${shQuote(target)}` };
      if (!present.failed) {
        cached.push(image.volume);
        continue;
      }
      const partial = `${poolPath}/.${image.volume}.${args.cluster}.partial`;
      const fetched: CommandResult =
        image.kind === 'url'
          ? yield {
              kind: 'exec',
              command: `rm -f ${shQuote(partial)} && curl -fsSL --retry 3 -o ${shQuote(partial)} ${shQuote(image.source)} && stat -c %s ${shQuote(partial)}`,
              timeoutMs: 3_600_000,
            }
          : yield { kind: 'put', remotePath: partial, localPath: image.source, mode: 0o644 };
      if (fetched.failed) {
        yield { kind: 'exec', command: `rm -f ${shQuote(partial)}` };
        return {
          changed,
          failed: true,
          msg: `cannot ${image.kind === 'url' ? 'download' : 'copy'} ${image.source}: ${reason(fetched)}`,
        };
      }
      if (image.kind === 'url') downloadedBytes += Number(fetched.stdout.trim()) || 0;
      const sum = yield {
        kind: 'exec',
        command: `${algorithmTool[image.algorithm]} ${shQuote(partial)} | cut -d ' ' -f 1`,
      };
      const actual = sum.stdout.trim();
      if (sum.failed || actual !== image.digest) {
        yield { kind: 'exec', command: `rm -f ${shQuote(partial)}` };
        return {
          changed,
          failed: true,
          inputError: !sum.failed,
          msg: sum.failed
            ? `cannot check ${image.source}: ${reason(sum)}`
            : `${image.source} has ${image.algorithm.toUpperCase()} ${actual}, expected ${image.digest}: wrong digest, or not the file you meant (removed, nothing else changed)`,
        };
      }
      if (image.format === 'qcow2') {
        const info = yield { kind: 'exec', command: `qemu-img info --output=json ${shQuote(partial)}` };
        const format = /"format":\s*"([^"]+)"/.exec(info.stdout)?.[1];
        if (info.failed || format !== 'qcow2') {
          yield { kind: 'exec', command: `rm -f ${shQuote(partial)}` };
          return {
            changed,
            failed: true,
            inputError: !info.failed,
            msg: `${image.source} is ${format ? `a ${format} image` : 'not a disk image qemu-img reads'}, not qcow2`,
          };
        }
      }
      const placed = yield {
        kind: 'exec',
        command: `chmod 0644 ${shQuote(partial)} && mv -f ${shQuote(partial)} ${shQuote(target)} && ${virsh(args.uri, 'pool-refresh', args.pool)} >/dev/null`,
      };
      if (placed.failed)
        return { changed, failed: true, msg: `cannot place ${image.volume} in the pool: ${reason(placed)}` };
      changed = true;
    }
    return { changed, failed: false, data: { poolPath, downloadedBytes, cached, skipped } };
  },
};

/** A libvirt_images plan step. */
export const libvirtImagesStep = stepBuilder(libvirtImagesModule);
