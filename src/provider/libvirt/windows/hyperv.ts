import type { XMLParser } from 'fast-xml-parser';
import { fastXmlParser } from '../xml-library.js';

/**
 * Hyper-V enlightenments kubemix turns on for Windows guests, in virt-install's order.
 * virt-install (virt-manager, virtinst/domain/features.py `_set_hyperv_defaults`, commit
 * 2450354f3) enables each one only when the hypervisor's domain capabilities list it, and some
 * only when others are on: synic needs vpindex; stimer needs vpindex, synic and the hypervclock
 * timer; tlbflush and ipi need vpindex. kubemix follows the same rule (evmcs, avic and the
 * `direct` variants, which depend on the host CPU vendor, are left out).
 *
 * The rule matters here: libvirt 9.0 with QEMU 7.2 under TCG lists only `spinlocks` (and
 * vendor_id), and QEMU refuses to start a TCG guest with hv-vpindex ("kernel doesn't allow
 * setting HyperV VP_INDEX", seen on this project's machines), so a fixed list would break the
 * emulation fallback.
 */
export const HYPERV_FEATURES = [
  'relaxed',
  'vapic',
  'spinlocks',
  'vpindex',
  'runtime',
  'synic',
  'stimer',
  'frequencies',
  'tlbflush',
  'ipi',
] as const;
export type HypervFeature = (typeof HYPERV_FEATURES)[number];

/** virt-install's spinlock retry count (`spinlocks_retries` 8191). */
export const HYPERV_SPINLOCK_RETRIES = 8191;

const REQUIRES: Partial<Record<HypervFeature, readonly HypervFeature[]>> = {
  synic: ['vpindex'],
  stimer: ['vpindex', 'synic'],
  tlbflush: ['vpindex'],
  ipi: ['vpindex'],
};

/** What the domain XML gets: the enlightenments and whether the hypervclock timer is on. */
export interface HypervChoice {
  features: HypervFeature[];
  /** virt-install adds `<timer name='hypervclock' present='yes'/>` for Windows guests. */
  hypervClock: boolean;
}

/**
 * The enlightenments for a Windows guest, given the Hyper-V feature names the hypervisor's
 * `virsh domcapabilities` lists for the chosen virt type and machine.
 */
export function chooseHyperv(supported: readonly string[]): HypervChoice {
  const on = new Set<HypervFeature>();
  for (const feature of HYPERV_FEATURES) {
    if (!supported.includes(feature)) continue;
    // stimer also needs hv-time, which libvirt enables through the hypervclock timer (always on here).
    if ((REQUIRES[feature] ?? []).every((needed) => on.has(needed))) on.add(feature);
  }
  return { features: HYPERV_FEATURES.filter((f) => on.has(f)), hypervClock: true };
}

let parser: XMLParser | undefined;
const newParser = () =>
  new (fastXmlParser().XMLParser)({
    ignoreAttributes: false,
    attributeNamePrefix: '@_',
    isArray: (name) => name === 'enum' || name === 'value',
  });

/**
 * The Hyper-V feature names in `virsh domcapabilities` output
 * (`<features><hyperv supported='yes'><enum name='features'><value>...`); none when Hyper-V
 * is unsupported or the output has no such element.
 */
export function supportedHypervFeatures(domainCapabilitiesXml: string): string[] {
  parser ??= newParser();
  const doc = parser.parse(domainCapabilitiesXml) as {
    domainCapabilities?: {
      features?: {
        hyperv?: { '@_supported'?: string; enum?: { '@_name'?: string; value?: unknown[] }[] };
      };
    };
  };
  const hyperv = doc.domainCapabilities?.features?.hyperv;
  if (hyperv?.['@_supported'] !== 'yes') return [];
  const features = hyperv.enum?.find((e) => e['@_name'] === 'features');
  return (features?.value ?? []).map(String);
}
