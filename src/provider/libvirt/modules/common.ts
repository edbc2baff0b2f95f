import { type RawArgs, rejectUnknown, requireString } from '../../../modules/args.js';
import type { ModuleAction, ModuleContext, ModuleOutcome } from '../../../modules/types.js';
import { shQuote } from '../../../quote/index.js';
import type { CommandResult } from '../../../types/command-result.js';
import type { ProviderResource, ResourceStatus } from '../../../types/provision.js';

/** Arguments every libvirt module takes (the planner writes them; see libvirt-provider.ts). */
export interface LibvirtCommon {
  uri: string;
  cluster: string;
  /** kubemix's directory on the hypervisor. */
  dataDir: string;
  /** kubemix's storage pool. */
  pool: string;
}

/** Parses the common arguments and rejects any argument not in `known` (nor common). */
export function parseCommon(module: string, raw: RawArgs, known: readonly string[]): LibvirtCommon {
  rejectUnknown(module, raw, ['uri', 'cluster', 'dataDir', 'pool', ...known]);
  return {
    uri: requireString(module, raw, 'uri'),
    cluster: requireString(module, raw, 'cluster'),
    dataDir: requireString(module, raw, 'dataDir'),
    pool: requireString(module, raw, 'pool'),
  };
}

/** The part of a per-hypervisor argument (`hypervisors: { <name>: ... }`) for the host the module runs on. */
export function forThisHypervisor<T>(
  module: string,
  hypervisors: unknown,
  context: ModuleContext,
): T | undefined {
  if (typeof hypervisors !== 'object' || hypervisors === null || Array.isArray(hypervisors))
    throw new TypeError(`${module}: hypervisors must be a mapping of hypervisor name to its part`);
  return (hypervisors as Record<string, T>)[context.host.name];
}

/** A virsh command line against `uri`, every argument quoted. */
export const virsh = (uri: string, ...args: string[]): string =>
  `virsh -q -c ${shQuote(uri)} ${args.map((a) => shQuote(a)).join(' ')}`;

/** A libvirt resource record of the cluster, on the host the module runs on. */
export function resource(
  context: ModuleContext,
  kind: string,
  name: string,
  status: ResourceStatus,
  details?: Record<string, string>,
): ProviderResource {
  return {
    provider: 'libvirt',
    kind,
    name,
    location: context.host.name,
    status,
    ...(details ? { details } : {}),
  };
}

/** The resources recorded for this hypervisor that may still exist. */
export function recordedHere(context: ModuleContext, kind?: string): ProviderResource[] {
  return (context.ledger?.resources ?? []).filter(
    (r) =>
      r.provider === 'libvirt' &&
      r.location === context.host.name &&
      r.status !== 'deleted' &&
      (kind === undefined || r.kind === kind),
  );
}

/** Non-empty output lines. */
export const outputLines = (result: CommandResult): string[] =>
  result.stdout
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '');

/** A one-line reason from a failed command. */
export const reason = (result: CommandResult): string =>
  (result.stderr.trim() || result.stdout.trim() || `exit code ${result.exitCode ?? 'none'}`)
    .split('\n')
    .slice(-2)
    .join(' ');

/** Path of a volume in a directory pool. */
export const volumePath = (poolPath: string, volume: string) => `${poolPath}/${volume}`;

/**
 * A shell assignment `<variable>=<the pool's target path>` (empty when the pool is not defined):
 * the first `<path>` of `virsh pool-dumpxml`, a directory pool's target.
 */
export const poolPathAssignment = (variable: string, uri: string, pool: string): string =>
  `${variable}=$(${virsh(uri, 'pool-dumpxml', pool)} 2>/dev/null | sed -n 's:.*<path>\\(.*\\)</path>.*:\\1:p' | head -n 1)`;

/** Reads a directory pool's target path from `virsh pool-dumpxml`. */
export function poolPathFrom(xml: string): string | undefined {
  return /<target>\s*<path>([^<]+)<\/path>/.exec(xml)?.[1]?.trim();
}

/**
 * A module step (`yield*`): the pool's target directory read with `virsh pool-dumpxml`, or the
 * outcome a module returns when the pool is not usable.
 */
export function* poolDirectory(
  uri: string,
  pool: string,
): Generator<ModuleAction, { path: string } | { failed: ModuleOutcome }, CommandResult> {
  const dumped = yield { kind: 'exec', command: virsh(uri, 'pool-dumpxml', pool) };
  const path = poolPathFrom(dumped.stdout);
  if (dumped.failed || !path)
    return {
      failed: { changed: false, failed: true, msg: `storage pool ${pool} is not usable: ${reason(dumped)}` },
    };
  return { path };
}
