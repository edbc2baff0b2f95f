import { type Accelerator, domainXml } from '../../provider/libvirt/domain-xml.js';
import type { GuestDefinition, GuestDisk } from '../../provider/libvirt/guest.js';
import { clusterFilesDir } from '../../provider/libvirt/names.js';
import { overlayVolumeXml } from '../../provider/libvirt/storage-xml.js';
import { shQuote } from '../../quote/index.js';
import type { ProviderResource } from '../../types/provision.js';
import { type RawArgs, requireString } from '../args.js';
import type { Module, ModuleAction, ModuleContext, ModuleRun } from '../types.js';
import {
  forThisHypervisor,
  type LibvirtCommon,
  outputLines,
  parseCommon,
  poolPathFrom,
  reason,
  resource,
  virsh,
} from './common.js';

interface GuestsArgs extends LibvirtCommon {
  accel: Accelerator;
  hypervisors: unknown;
}

type Step = Generator<
  ModuleAction,
  string | undefined,
  import('../../types/command-result.js').CommandResult
>;

/** An ISO 9660 image with Rock Ridge and Joliet from a directory, with whichever tool the hypervisor has. */
function isoScript(source: string, output: string, label: string): string {
  return [
    'if command -v genisoimage >/dev/null 2>&1; then set -- genisoimage',
    'elif command -v mkisofs >/dev/null 2>&1; then set -- mkisofs',
    'else set -- xorriso -as mkisofs; fi',
    `"$@" -quiet -output ${shQuote(output)} -volid ${shQuote(label)} -joliet -rock ${shQuote(source)} && chmod 0644 ${shQuote(output)}`,
  ].join('\n');
}

/** The volumes a guest owns (cached media are shared and not the cluster's). */
const ownVolumes = (guest: GuestDefinition) => guest.disks.filter((d) => d.source.kind !== 'cached');

function guestResources(
  context: ModuleContext,
  guest: GuestDefinition,
  status: ProviderResource['status'],
  pool: string,
) {
  return [
    ...ownVolumes(guest).map((d) => resource(context, 'volume', d.volume, status, { pool })),
    resource(context, 'domain', guest.domain, status, { node: guest.node, consoleLog: guest.consoleLog }),
  ];
}

/** Makes one disk's volume; returns why not, or undefined. */
function* makeVolume(
  args: GuestsArgs,
  poolPath: string,
  dir: string,
  guest: GuestDefinition,
  disk: GuestDisk,
): Step {
  const source = disk.source;
  switch (source.kind) {
    case 'cached':
      return undefined;
    case 'overlay': {
      const file = `${dir}/${disk.volume}.xml`;
      const xml = overlayVolumeXml({
        name: disk.volume,
        sizeGiB: source.sizeGiB,
        basePath: `${poolPath}/${source.base.volume}`,
        baseFormat: source.base.format,
      });
      const put = yield { kind: 'put', remotePath: file, content: xml, mode: 0o644 };
      if (put.failed) return `cannot write ${file}: ${reason(put)}`;
      const made = yield { kind: 'exec', command: virsh(args.uri, 'vol-create', args.pool, file) };
      return made.failed ? `cannot create volume ${disk.volume}: ${reason(made)}` : undefined;
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
    case 'config-iso': {
      const files = `${dir}/${guest.node}.${source.label}`;
      const mkdir = yield { kind: 'exec', command: `rm -rf ${shQuote(files)} && mkdir -p ${shQuote(files)}` };
      if (mkdir.failed) return `cannot make ${files}: ${reason(mkdir)}`;
      for (const [name, content] of Object.entries(source.files)) {
        const put = yield { kind: 'put', remotePath: `${files}/${name}`, content, mode: 0o644 };
        if (put.failed) return `cannot write ${files}/${name}: ${reason(put)}`;
      }
      const iso = yield {
        kind: 'exec',
        command: `${isoScript(files, `${poolPath}/${disk.volume}`, source.label)} && ${virsh(args.uri, 'pool-refresh', args.pool)} >/dev/null`,
      };
      return iso.failed ? `cannot make ${disk.volume}: ${reason(iso)}` : undefined;
    }
  }
}

/**
 * `libvirt_guests`: every guest placed on this hypervisor exists and runs: its volumes (overlay
 * on the cached base image, config ISO, blank disk), its domain (XML from the guest definition,
 * `kvm` or `qemu` as the preflight found), started. The volumes and domains are recorded in the
 * state before any is made; what exists already (a resumed run) is kept, never made twice.
 * Each started guest is recorded as created, with its domain and MAC assigned to its host.
 */
export const libvirtGuestsModule: Module<GuestsArgs> = {
  name: 'libvirt_guests',
  os: 'linux',
  parseArgs(raw: RawArgs) {
    const common = parseCommon('libvirt_guests', raw, ['accel', 'hypervisors']);
    const accel = requireString('libvirt_guests', raw, 'accel');
    if (accel !== 'kvm' && accel !== 'qemu')
      throw new TypeError(`libvirt_guests: accel must be kvm or qemu, got "${accel}"`);
    return { ...common, accel, hypervisors: raw['hypervisors'] };
  },
  *run(args, context): ModuleRun {
    const guests = forThisHypervisor<GuestDefinition[]>('libvirt_guests', args.hypervisors, context) ?? [];
    if (guests.length === 0) return { changed: false, failed: false, msg: 'no guests placed here' };
    const pool = yield { kind: 'exec', command: virsh(args.uri, 'pool-dumpxml', args.pool) };
    const poolPath = poolPathFrom(pool.stdout);
    if (pool.failed || !poolPath)
      return {
        changed: false,
        failed: true,
        msg: `storage pool ${args.pool} is not usable: ${reason(pool)}`,
      };
    const intent = yield {
      kind: 'record',
      update: { resources: guests.flatMap((g) => guestResources(context, g, 'intended', args.pool)) },
    };
    if (intent.failed) return { changed: false, failed: true, msg: intent.stderr };

    const listed = yield {
      kind: 'exec',
      command: `echo '# domains'; ${virsh(args.uri, 'list', '--all', '--name')}; echo '# running'; ${virsh(args.uri, 'list', '--state-running', '--name')}; echo '# volumes'; ${virsh(args.uri, 'vol-list', '--pool', args.pool)} | awk '{print $1}'`,
    };
    if (listed.failed)
      return { changed: false, failed: true, msg: `cannot list domains and volumes: ${reason(listed)}` };
    const existing = { domains: new Set<string>(), running: new Set<string>(), volumes: new Set<string>() };
    let section: keyof typeof existing | undefined;
    for (const line of outputLines(listed)) {
      if (line.startsWith('# ')) section = line.slice(2) as keyof typeof existing;
      else if (section) existing[section].add(line);
    }

    const dir = clusterFilesDir(args.dataDir, args.cluster);
    let changed = false;
    for (const guest of guests) {
      for (const disk of ownVolumes(guest)) {
        if (existing.volumes.has(disk.volume)) continue;
        const why = yield* makeVolume(args, poolPath, dir, guest, disk);
        if (why) return { changed, failed: true, msg: `${guest.domain}: ${why}` };
        changed = true;
      }
      if (!existing.domains.has(guest.domain)) {
        const file = `${dir}/${guest.node}.domain.xml`;
        const xml = domainXml(guest, { accel: args.accel, pool: args.pool, cluster: args.cluster });
        const put = yield { kind: 'put', remotePath: file, content: xml, mode: 0o644 };
        if (put.failed)
          return { changed, failed: true, msg: `${guest.domain}: cannot write ${file}: ${reason(put)}` };
        // QEMU runs as libvirt's unprivileged user: the console log must exist for libvirt to hand it over.
        const defined = yield {
          kind: 'exec',
          command: `touch ${shQuote(guest.consoleLog)} && ${virsh(args.uri, 'define', file)}`,
        };
        if (defined.failed)
          return {
            changed,
            failed: true,
            msg: `${guest.domain}: cannot define the domain: ${reason(defined)}`,
          };
        changed = true;
      }
      if (!existing.running.has(guest.domain)) {
        const started = yield { kind: 'exec', command: virsh(args.uri, 'start', guest.domain) };
        if (started.failed)
          return { changed, failed: true, msg: `${guest.domain}: cannot start: ${reason(started)}` };
        changed = true;
      }
      yield {
        kind: 'record',
        update: {
          resources: guestResources(context, guest, 'created', args.pool),
          hosts: [
            {
              name: guest.node,
              vars: {
                libvirt_domain: guest.domain,
                mac: guest.mac,
                hypervisor: guest.hypervisor,
                console_log: guest.consoleLog,
              },
            },
          ],
        },
      };
    }
    return { changed, failed: false, data: { guests: guests.map((g) => g.domain) } };
  },
};
