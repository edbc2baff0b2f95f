import { type RawArgs, stringList } from '../../../modules/args.js';
import { stepBuilder } from '../../../modules/step-builder.js';
import type { Module, ModuleContext, ModuleRun } from '../../../modules/types.js';
import { shQuote } from '../../../quote/index.js';
import type { ProviderResource } from '../../../types/provision.js';
import { removeTunnelScript } from '../tunnel.js';
import { clusterPartialsPattern } from '../windows/golden-cache.js';
import {
  type LibvirtCommon,
  parseCommon,
  poolPathAssignment,
  reason,
  recordedHere,
  resource,
  virsh,
} from './common.js';
import { type ClusterNamesArgs, parseClusterNames } from './discovery.js';

/** libvirt_destroy_guests' arguments (the plan's and the module's one type). */
export interface DestroyGuestsArgs extends LibvirtCommon {
  /** Local directory the guests' console logs are copied to before they go. */
  consoleDir: string;
  /** Cached image volumes to remove too, when no other volume is backed by them. */
  purgeImages: string[];
  /**
   * What the state records on each hypervisor, by hypervisor name: shown by `plan --down` (a
   * teardown resumed after new records runs again). The module reads the state itself.
   */
  recorded?: Record<string, string[]>;
}

/** libvirt_destroy_network's arguments (the plan's and the module's one type). */
export interface DestroyNetworkArgs extends ClusterNamesArgs {
  /**
   * What the state records on each hypervisor, by hypervisor name: shown by `plan --down` (a
   * teardown resumed after new records runs again). The module reads the state itself.
   */
  recorded?: Record<string, string[]>;
}

const deleted = (context: ModuleContext, r: ProviderResource) =>
  resource(context, r.kind, r.name, 'deleted', r.details);

/** Removes a domain, running or not; a domain that is gone already is fine. */
export function destroyDomainScript(uri: string, domain: string): string {
  return [
    `if ${virsh(uri, 'dominfo', domain)} >/dev/null 2>&1; then`,
    `  ${virsh(uri, 'destroy', domain)} >/dev/null 2>&1 || true`,
    `  ${virsh(uri, 'undefine', '--nvram', domain)} >/dev/null`,
    'fi',
    `rm -f ${shQuote(`/var/log/libvirt/qemu/${domain}.log`)}`,
  ].join('\n');
}

/** Deletes a volume unless it is gone already. */
export const deleteVolumeScript = (uri: string, pool: string, volume: string) =>
  `if ${virsh(uri, 'vol-info', '--pool', pool, volume)} >/dev/null 2>&1; then ${virsh(uri, 'vol-delete', '--pool', pool, volume)} >/dev/null; fi`;

/**
 * Removes the cluster's golden image capture partials from the pool directory (a capture that
 * died before linking it into place: golden-cache.ts); prints each one removed.
 */
function removeCapturePartialsScript(uri: string, pool: string, cluster: string): string {
  return [
    poolPathAssignment('pool_path', uri, pool),
    `if [ -n "$pool_path" ]; then for f in "$pool_path"/${clusterPartialsPattern(cluster)}; do if [ -e "$f" ]; then rm -f -- "$f" && echo "removed $f"; fi; done; fi`,
  ].join('\n');
}

/** Deletes a cached image unless another volume of the pool is an overlay on it. */
function purgeImageScript(uri: string, pool: string, volume: string): string {
  return [
    `if ${virsh(uri, 'vol-info', '--pool', pool, volume)} >/dev/null 2>&1; then`,
    `  path=$(${virsh(uri, 'vol-path', '--pool', pool, volume)})`,
    `  users=$(${virsh(uri, 'vol-list', '--pool', pool)} | awk '{print $1}' | while read -r v; do ${virsh(uri, 'vol-dumpxml', '--pool', pool)} "$v" | grep -q -F "<path>$path</path>" && [ "$v" != ${shQuote(volume)} ] && echo "$v"; done)`,
    `  if [ -z "$users" ]; then ${virsh(uri, 'vol-delete', '--pool', pool, volume)} >/dev/null; echo purged; else echo "kept: used by $users"; fi`,
    'fi',
  ].join('\n');
}

/**
 * `libvirt_destroy_guests`: every domain, volume and directory the state records for this
 * hypervisor is removed (whatever its status: an `intended` one may exist), tolerating what is
 * gone already; each is recorded as deleted once gone. Console logs are copied to the cluster
 * directory first (kept for failures). A golden image capture's partial file of the cluster goes
 * too (it is no volume: hidden, never refreshed into the pool). With purgeImages, cached images no other volume uses go too.
 */
export const libvirtDestroyGuestsModule: Module<DestroyGuestsArgs> = {
  name: 'libvirt_destroy_guests',
  os: 'linux',
  parseArgs(raw: RawArgs) {
    const common = parseCommon('libvirt_destroy_guests', raw, ['consoleDir', 'purgeImages', 'recorded']);
    return {
      ...common,
      consoleDir: String(raw['consoleDir'] ?? ''),
      purgeImages: stringList('libvirt_destroy_guests', raw, 'purgeImages') ?? [],
    };
  },
  *run(args, context): ModuleRun {
    let changed = false;
    const problems: string[] = [];
    for (const domain of recordedHere(context, 'domain')) {
      const log = domain.details?.['consoleLog'];
      if (log && args.consoleDir) {
        // Missing when the guest never started: nothing to keep.
        yield {
          kind: 'get',
          remotePath: log,
          localPath: `${args.consoleDir}/${domain.details?.['node'] ?? domain.name}.log`,
        };
      }
      const gone = yield { kind: 'exec', command: destroyDomainScript(args.uri, domain.name) };
      if (gone.failed) problems.push(`domain ${domain.name}: ${reason(gone)}`);
      else {
        yield { kind: 'record', update: { resources: [deleted(context, domain)] } };
        changed = true;
      }
    }
    for (const volume of recordedHere(context, 'volume')) {
      const pool = volume.details?.['pool'] ?? args.pool;
      const gone = yield { kind: 'exec', command: deleteVolumeScript(args.uri, pool, volume.name) };
      if (gone.failed) problems.push(`volume ${volume.name}: ${reason(gone)}`);
      else {
        yield { kind: 'record', update: { resources: [deleted(context, volume)] } };
        changed = true;
      }
    }
    const partials = yield {
      kind: 'exec',
      command: removeCapturePartialsScript(args.uri, args.pool, args.cluster),
    };
    if (partials.failed) problems.push(`golden image capture partials: ${reason(partials)}`);
    else if (partials.stdout.includes('removed')) changed = true;
    for (const image of args.purgeImages) {
      const purged = yield { kind: 'exec', command: purgeImageScript(args.uri, args.pool, image) };
      if (purged.failed) problems.push(`cached image ${image}: ${reason(purged)}`);
      else if (purged.stdout.includes('purged')) changed = true;
    }
    if (problems.length > 0) return { changed, failed: true, msg: problems.join('; ') };
    return { changed, failed: false };
  },
};

/**
 * `libvirt_destroy_network`: the tunnel device is removed, the cluster's network destroyed and
 * undefined, its bridge gone, and the files libvirt's dnsmasq kept for it removed; then the
 * cluster's file directory. Tolerates what is gone already.
 */
export const libvirtDestroyNetworkModule: Module<DestroyNetworkArgs> = {
  name: 'libvirt_destroy_network',
  os: 'linux',
  parseArgs: (raw: RawArgs) => parseClusterNames('libvirt_destroy_network', raw, ['recorded']),
  *run(args, context): ModuleRun {
    let changed = false;
    const problems: string[] = [];
    for (const tunnel of recordedHere(context, 'tunnel')) {
      const gone = yield { kind: 'exec', command: removeTunnelScript(tunnel.name) };
      if (gone.failed) problems.push(`tunnel ${tunnel.name}: ${reason(gone)}`);
      else {
        yield { kind: 'record', update: { resources: [deleted(context, tunnel)] } };
        changed = true;
      }
    }
    for (const network of recordedHere(context, 'network')) {
      const bridge = network.details?.['bridge'];
      const gone = yield {
        kind: 'exec',
        command: [
          `if ${virsh(args.uri, 'net-info', network.name)} >/dev/null 2>&1; then`,
          `  ${virsh(args.uri, 'net-destroy', network.name)} >/dev/null 2>&1 || true`,
          `  ${virsh(args.uri, 'net-undefine', network.name)} >/dev/null`,
          'fi',
          ...(bridge
            ? [
                `if ip -o link show dev ${shQuote(bridge)} >/dev/null 2>&1; then ip link delete ${shQuote(bridge)}; fi`,
                `rm -f ${shQuote(`/var/lib/libvirt/dnsmasq/${bridge}.`)}*`,
              ]
            : []),
          // libvirt 9 leaves dnsmasq's lease status and pid files behind after net-undefine...
          `rm -f ${shQuote(`/var/lib/libvirt/dnsmasq/${network.name}.`)}* ${shQuote(`/run/libvirt/network/${network.name}.`)}*`,
          // ... and its directory of network port records.
          `rm -rf -- ${shQuote(`/run/libvirt/network/${network.name}`)}`,
        ].join('\n'),
      };
      if (gone.failed) problems.push(`network ${network.name}: ${reason(gone)}`);
      else {
        yield { kind: 'record', update: { resources: [deleted(context, network)] } };
        changed = true;
      }
    }
    for (const directory of recordedHere(context, 'directory')) {
      const gone = yield { kind: 'exec', command: `rm -rf -- ${shQuote(directory.name)}` };
      if (gone.failed) problems.push(`directory ${directory.name}: ${reason(gone)}`);
      else {
        yield { kind: 'record', update: { resources: [deleted(context, directory)] } };
        changed = true;
      }
    }
    if (problems.length > 0) return { changed, failed: true, msg: problems.join('; ') };
    return { changed, failed: false };
  },
};

/** A libvirt_destroy_guests plan step (`consoleDir` and `purgeImages` may be left out). */
export const libvirtDestroyGuestsStep = stepBuilder(libvirtDestroyGuestsModule, [
  'consoleDir',
  'purgeImages',
]);

/** A libvirt_destroy_network plan step. */
export const libvirtDestroyNetworkStep = stepBuilder(libvirtDestroyNetworkModule);
