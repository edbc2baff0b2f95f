import { type RawArgs, requireString } from '../../../modules/args.js';
import { stepBuilder } from '../../../modules/step-builder.js';
import type { Module, ModuleAction, ModuleContext, ModuleRun } from '../../../modules/types.js';
import { shQuote } from '../../../quote/index.js';
import type { CommandResult } from '../../../types/command-result.js';
import type { ProviderResource } from '../../../types/provision.js';
import { type Accelerator, domainXml } from '../domain-xml.js';
import type { GuestDefinition } from '../guest.js';
import { clusterFilesDir } from '../names.js';
import { goldenVolumeTest } from '../windows/golden-cache.js';
import { chooseHyperv, type HypervChoice, supportedHypervFeatures } from '../windows/hyperv.js';
import {
  forThisHypervisor,
  type LibvirtCommon,
  outputLines,
  parseCommon,
  poolDirectory,
  reason,
  resource,
  virsh,
} from './common.js';
import { deleteVolumeScript, destroyDomainScript } from './destroy.js';
import { generalizingMarked } from './golden-marker.js';
import { makeVolume } from './guest-volumes.js';

/** libvirt_guests' arguments (the plan's and the module's one type). */
export interface GuestsArgs extends LibvirtCommon {
  accel: Accelerator;
  /** The guests placed on each hypervisor, by hypervisor name. */
  hypervisors: Record<string, GuestDefinition[]>;
  /** Administrator passwords of the Windows guests by node (the secret output of libvirt_windows_passwords). */
  passwords: Record<string, unknown>;
  /** By hypervisor, with `windows.goldenImage`: its golden volume and first Windows guest as installed (layout.ts). */
  golden: Record<string, GoldenPlan>;
}

type GoldenPlan = { volume: string; install: GuestDefinition };

/**
 * The guests to make now. Without the golden volume in the pool, the first Windows guest is
 * installed from the ISO (it becomes the golden volume) and the other Windows guests wait:
 * they are overlays on a volume that does not exist yet (the golden image task makes them).
 */
function guestsToMake(
  guests: GuestDefinition[],
  golden: GoldenPlan,
  goldenExists: boolean,
): GuestDefinition[] {
  if (goldenExists) return guests;
  return guests.flatMap((guest) => {
    if (guest.node === golden.install.node) return [golden.install];
    const onGolden = guest.disks.some((d) => d.source.kind === 'golden-overlay');
    return onGolden ? [] : [guest];
  });
}

type Step = Generator<ModuleAction, string | undefined, CommandResult>;

/**
 * Why the first Windows guest cannot be installed, or undefined: prepare-provider fetches the
 * Windows media only where the golden volume is missing (libvirt_images, `onlyWithout`), so when
 * the volume was there then and has gone since, the ISOs are not in the pool. This stops before
 * anything is made, naming what to run, instead of defining a guest whose install medium is
 * missing.
 */
function* installMediaMissing(poolPath: string, golden: GoldenPlan): Step {
  const missing: string[] = [];
  for (const disk of golden.install.disks) {
    if (disk.source.kind !== 'cached') continue;
    const there = yield { kind: 'exec', command: `test -s ${shQuote(`${poolPath}/${disk.volume}`)}` };
    if (there.failed) missing.push(`${disk.volume} (${disk.source.image.source})`);
  }
  if (missing.length === 0) return undefined;
  return `${golden.install.domain}: the golden Windows volume ${golden.volume} is not in the pool, and neither is ${missing.join(', ')} to install it from: prepare-provider found the golden volume and fetched no Windows media, and the volume was removed since. Run \`kubemix up --from prepare-provider\` to fetch them and install`;
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

/** The Hyper-V enlightenments this hypervisor offers a q35 guest (virt-install's rule, windows/hyperv.ts). */
function* hypervChoice(args: GuestsArgs): Generator<ModuleAction, HypervChoice | string, CommandResult> {
  const caps = yield {
    kind: 'exec',
    command: virsh(
      args.uri,
      'domcapabilities',
      '--virttype',
      args.accel,
      '--machine',
      'q35',
      '--arch',
      'x86_64',
    ),
  };
  if (caps.failed) return `cannot read the domain capabilities: ${reason(caps)}`;
  return chooseHyperv(supportedHypervFeatures(caps.stdout));
}

/** What exists of the cluster on the hypervisor already (a resumed run). */
function parseExisting(listed: CommandResult) {
  const existing = {
    domains: new Set<string>(),
    running: new Set<string>(),
    paused: new Set<string>(),
    volumes: new Set<string>(),
  };
  let section: keyof typeof existing | undefined;
  for (const line of outputLines(listed)) {
    if (line.startsWith('# ')) section = line.slice(2) as keyof typeof existing;
    else if (section) existing[section].add(line);
  }
  return existing;
}

/**
 * Removes the first Windows guest as installed when it carries the generalize mark although the
 * golden volume exists (a capture that published the volume, then failed to remove the guest):
 * domain and its own volumes, also from `existing`. Unmarked, the domain is an overlay already and
 * stays. Returns why it could not, or undefined.
 */
function* removeCapturedInstall(
  args: GuestsArgs,
  golden: GoldenPlan,
  existing: ReturnType<typeof parseExisting>,
): Generator<ModuleAction, string | undefined, CommandResult> {
  const domain = golden.install.domain;
  const marked = yield* generalizingMarked(args.uri, domain);
  if (typeof marked === 'object') return `cannot read whether it is the installed guest: ${marked.error}`;
  if (!marked) return undefined;
  const volumes = ownVolumes(golden.install)
    .map((d) => d.volume)
    .filter((v) => existing.volumes.has(v));
  const removed = yield {
    kind: 'exec',
    command: [
      destroyDomainScript(args.uri, domain),
      ...volumes.map((v) => deleteVolumeScript(args.uri, args.pool, v)),
    ].join('\n'),
  };
  if (removed.failed)
    return `the golden volume exists but the installed guest it was captured from is still here, and it cannot be removed: ${reason(removed)}`;
  existing.domains.delete(domain);
  existing.running.delete(domain);
  for (const v of volumes) existing.volumes.delete(v);
  return undefined;
}

/** Makes a guest's own volumes and defines its domain, unless they exist; returns why not, or undefined. */
function* defineGuest(
  args: GuestsArgs,
  where: { poolPath: string; dir: string; hyperv: HypervChoice | undefined },
  guest: GuestDefinition,
  existing: ReturnType<typeof parseExisting>,
): Generator<ModuleAction, string | undefined | 'made', CommandResult> {
  let made = false;
  for (const disk of ownVolumes(guest)) {
    if (existing.volumes.has(disk.volume)) continue;
    const why = yield* makeVolume(args, where.poolPath, where.dir, guest, disk);
    if (why) return why;
    made = true;
  }
  if (existing.domains.has(guest.domain)) return made ? 'made' : undefined;
  const file = `${where.dir}/${guest.node}.domain.xml`;
  const xml = domainXml(guest, {
    accel: args.accel,
    pool: args.pool,
    cluster: args.cluster,
    ...(where.hyperv ? { hyperv: where.hyperv } : {}),
  });
  const put = yield { kind: 'put', remotePath: file, content: xml, mode: 0o644 };
  if (put.failed) return `cannot write ${file}: ${reason(put)}`;
  // QEMU runs as libvirt's unprivileged user: the console log must exist for libvirt to hand it over.
  const defined = yield {
    kind: 'exec',
    command: `touch ${shQuote(guest.consoleLog)} && ${virsh(args.uri, 'define', file)}`,
  };
  return defined.failed ? `cannot define the domain: ${reason(defined)}` : 'made';
}

/**
 * `libvirt_guests`: every guest placed on this hypervisor exists and runs: its volumes (overlay
 * on the cached base image, config ISO, blank disk), its domain (XML from the guest definition,
 * `kvm` or `qemu` as the preflight found; Windows with the Hyper-V enlightenments the hypervisor
 * offers), started. Every guest is defined before the first one starts, so the guests boot
 * together, not one after another's disk work. The volumes and domains are recorded in the state
 * before any is made; what exists already (a resumed run) is kept, never made twice. Each started
 * guest is recorded as created, with its domain and MAC assigned to its host.
 *
 * With the golden image (`golden`, per hypervisor), the Windows guests are overlays on the golden
 * volume when the pool has it; when it has not, the first Windows guest is made as installed from
 * the ISO instead and the other Windows guests are not made (nor recorded): the golden-image task
 * captures the volume, then runs this module again with the same arguments. `data.golden`
 * (registered) says which: `exists`, `capture`, or `generalizing` when the first guest carries
 * the marker libvirt_golden_mark sets before sysprep (a resumed run): then it is left as it is,
 * running or shut off, for the capture.
 */
export const libvirtGuestsModule: Module<GuestsArgs> = {
  name: 'libvirt_guests',
  os: 'linux',
  parseArgs(raw: RawArgs) {
    const common = parseCommon('libvirt_guests', raw, ['accel', 'hypervisors', 'passwords', 'golden']);
    const accel = requireString('libvirt_guests', raw, 'accel');
    if (accel !== 'kvm' && accel !== 'qemu')
      throw new TypeError(`libvirt_guests: accel must be kvm or qemu, got "${accel}"`);
    const passwords = raw['passwords'] ?? {};
    if (typeof passwords !== 'object' || passwords === null || Array.isArray(passwords))
      throw new TypeError('libvirt_guests: passwords must be a mapping of node name to password');
    return {
      ...common,
      accel,
      hypervisors: raw['hypervisors'] as GuestsArgs['hypervisors'],
      passwords: passwords as Record<string, unknown>,
      golden: (raw['golden'] ?? {}) as GuestsArgs['golden'],
    };
  },
  *run(args, context): ModuleRun {
    const placed = forThisHypervisor<GuestDefinition[]>('libvirt_guests', args.hypervisors, context) ?? [];
    if (placed.length === 0) return { changed: false, failed: false, msg: 'no guests placed here' };
    const pool = yield* poolDirectory(args.uri, args.pool);
    if ('failed' in pool) return pool.failed;
    const poolPath = pool.path;
    const golden = forThisHypervisor<GoldenPlan>('libvirt_guests', args.golden, context);
    let goldenState: 'exists' | 'capture' | 'generalizing' | undefined;
    let guests = placed;
    if (golden) {
      const there = yield { kind: 'exec', command: goldenVolumeTest(poolPath, golden.volume) };
      goldenState = there.failed ? 'capture' : 'exists';
      guests = guestsToMake(placed, golden, goldenState === 'exists');
      if (goldenState === 'capture') {
        const why = yield* installMediaMissing(poolPath, golden);
        if (why) return { changed: false, failed: true, msg: why };
      }
    }
    const listed = yield {
      kind: 'exec',
      command: `echo '# domains'; ${virsh(args.uri, 'list', '--all', '--name')}; echo '# running'; ${virsh(args.uri, 'list', '--state-running', '--name')}; echo '# paused'; ${virsh(args.uri, 'list', '--state-paused', '--name')}; echo '# volumes'; ${virsh(args.uri, 'vol-list', '--pool', args.pool)} | awk '{print $1}'`,
    };
    if (listed.failed)
      return { changed: false, failed: true, msg: `cannot list domains and volumes: ${reason(listed)}` };
    const existing = parseExisting(listed);
    // A first guest marked before sysprep (libvirt_golden_mark) is generalizing or generalized:
    // only the capture is left. It is left as it is, not recorded again (its config ISO is
    // deleted on purpose) and not started (booting would specialize the generalized Windows).
    if (golden && goldenState === 'capture' && existing.domains.has(golden.install.domain)) {
      const marked = yield* generalizingMarked(args.uri, golden.install.domain);
      if (typeof marked === 'object')
        return {
          changed: false,
          failed: true,
          msg: `cannot read whether ${golden.install.domain} is being generalized: ${marked.error}`,
        };
      if (marked) {
        goldenState = 'generalizing';
        guests = guests.filter((g) => g.domain !== golden.install.domain);
      }
    }
    // The capture published the golden volume but could not remove the installed guest it came
    // from (it carries the mark): made as it is, that guest would boot the install's disk. It goes
    // now, and the loop below makes it again as an overlay under the same names.
    if (golden && goldenState === 'exists' && existing.domains.has(golden.install.domain)) {
      const why = yield* removeCapturedInstall(args, golden, existing);
      if (why) return { changed: false, failed: true, msg: `${golden.install.domain}: ${why}` };
    }
    const intent = yield {
      kind: 'record',
      update: { resources: guests.flatMap((g) => guestResources(context, g, 'intended', args.pool)) },
    };
    if (intent.failed) return { changed: false, failed: true, msg: intent.stderr };

    let hyperv: HypervChoice | undefined;
    if (guests.some((g) => g.windowsMachine && !existing.domains.has(g.domain))) {
      const choice = yield* hypervChoice(args);
      if (typeof choice === 'string') return { changed: false, failed: true, msg: choice };
      hyperv = choice;
    }

    const where = { poolPath, dir: clusterFilesDir(args.dataDir, args.cluster), hyperv };
    let changed = false;
    for (const guest of guests) {
      const outcome = yield* defineGuest(args, where, guest, existing);
      if (outcome === 'made') changed = true;
      else if (outcome) return { changed, failed: true, msg: `${guest.domain}: ${outcome}` };
    }
    for (const guest of guests) {
      // As Ansible's community.libvirt virt module brings a guest to state=running (virt.py core():
      // a paused domain is unpaused, any other that is not running is started): `virsh start` of
      // a paused domain fails with "Domain is already active".
      const paused = existing.paused.has(guest.domain);
      if (paused || !existing.running.has(guest.domain)) {
        const verb = paused ? 'resume' : 'start';
        const started = yield { kind: 'exec', command: virsh(args.uri, verb, guest.domain) };
        if (started.failed)
          return { changed, failed: true, msg: `${guest.domain}: cannot ${verb}: ${reason(started)}` };
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
    return {
      changed,
      failed: false,
      data: { guests: guests.map((g) => g.domain), ...(goldenState ? { golden: goldenState } : {}) },
    };
  },
};

/** A libvirt_guests plan step (`passwords` and `golden` may be left out). */
export const libvirtGuestsStep = stepBuilder(libvirtGuestsModule, ['passwords', 'golden']);
