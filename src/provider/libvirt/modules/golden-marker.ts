import { type RawArgs, rejectUnknown, requireString } from '../../../modules/args.js';
import { stepBuilder } from '../../../modules/step-builder.js';
import type { Module, ModuleAction, ModuleRun } from '../../../modules/types.js';
import type { CommandResult } from '../../../types/command-result.js';
import { reason, virsh } from './common.js';

/**
 * Namespace of the golden image marker in a domain's metadata. Not the cluster tag's namespace
 * (domain-xml.ts): libvirt keeps one metadata element per namespace, and setting one replaces it.
 */
export const GOLDEN_MARKER_NS = 'https://kubemix.dev/libvirt/golden/1';
/** The element written under that namespace once sysprep may have started on the guest. */
const MARKER_ELEMENT = '<golden state="generalizing"/>';

/**
 * Writes the marker into the domain's persistent definition (`virsh metadata --config`): it
 * outlives sysprep's power-off and the run, and goes with the domain (no cleanup of its own).
 */
export const markGeneralizingCommand = (uri: string, domain: string): string =>
  `${virsh(uri, 'metadata', domain, GOLDEN_MARKER_NS, '--key', 'kubemix', '--set', MARKER_ELEMENT, '--config')} >/dev/null`;

/** Prints the marker of the domain's persistent definition (virsh fails "metadata not found" without one). */
export const readMarkerCommand = (uri: string, domain: string): string =>
  virsh(uri, 'metadata', domain, GOLDEN_MARKER_NS, '--config');

/** Whether {@link readMarkerCommand}'s result shows the marker; a failure other than "none there" is a reason. */
export function parseMarker(read: CommandResult): boolean | { error: string } {
  if (!read.failed) return /<golden\b[^>]*\bstate="generalizing"/.test(read.stdout);
  // libvirt's VIR_ERR_NO_DOMAIN_METADATA: "metadata not found: Requested metadata element is not present".
  if (`${read.stderr}\n${read.stdout}`.includes('metadata not found')) return false;
  return { error: reason(read) };
}

/**
 * A module step (`yield*`): whether the domain carries the marker, or why that cannot be read
 * (then nobody should start or re-install that guest).
 */
export function* generalizingMarked(
  uri: string,
  domain: string,
): Generator<ModuleAction, boolean | { error: string }, CommandResult> {
  const read = yield { kind: 'exec', command: readMarkerCommand(uri, domain) };
  return parseMarker(read);
}

/** libvirt_golden_mark's arguments (the plan's and the module's one type). */
export interface MarkArgs {
  uri: string;
  domain: string;
}

/**
 * `libvirt_golden_mark` (on the hypervisor, just before the first Windows guest is generalized):
 * records in the domain's metadata that sysprep is about to run on it. A resumed golden-image
 * task finds it (libvirt_guests registers `golden: generalizing`), so it neither starts the
 * guest sysprep shut off (booting would specialize the generalized Windows) nor watches its
 * install or generalizes it again, and goes straight to waiting for the shut-off and capturing.
 */
export const libvirtGoldenMarkModule: Module<MarkArgs> = {
  name: 'libvirt_golden_mark',
  os: 'linux',
  parseArgs(raw: RawArgs) {
    const module = 'libvirt_golden_mark';
    rejectUnknown(module, raw, ['uri', 'domain']);
    return { uri: requireString(module, raw, 'uri'), domain: requireString(module, raw, 'domain') };
  },
  *run(args): ModuleRun {
    const marked = yield { kind: 'exec', command: markGeneralizingCommand(args.uri, args.domain) };
    if (marked.failed)
      return {
        changed: false,
        failed: true,
        msg: `cannot mark ${args.domain} as being generalized: ${reason(marked)}`,
      };
    return { changed: true, failed: false, msg: `${args.domain} is marked as being generalized` };
  },
};

/** A libvirt_golden_mark plan step. */
export const libvirtGoldenMarkStep = stepBuilder(libvirtGoldenMarkModule);
