import type { PlanStep } from '../../types/plan.js';
import type { LibvirtLayout, PlacedOnHypervisor } from './layout.js';
import type { LibvirtCommon } from './modules/common.js';
import { libvirtGuestsStep } from './modules/guests.js';
import { libvirtImagesStep } from './modules/images.js';
import { libvirtNetworkStep } from './modules/network.js';
import { libvirtPreflightStep } from './modules/preflight.js';
import { libvirtTunnelStep } from './modules/tunnel.js';
import { libvirtWindowsPasswordsStep } from './modules/windows-passwords.js';
import { WINDOWS_PASSWORDS_OUTPUT } from './node-host.js';

// The steps of prepare-provider, create-network and create-hosts on each hypervisor.

/** One value per hypervisor with guests, keyed by its name: the shape of the modules' `hypervisors` argument. */
export const byHypervisor = <T>(layout: LibvirtLayout, pick: (entry: PlacedOnHypervisor) => T) =>
  Object.fromEntries([...layout.placed].map(([name, entry]) => [name, pick(entry)]));

/** What create-hosts registers on each hypervisor: `golden` is `capture` when the golden volume must be made there. */
export const GUESTS_OUTPUT = 'libvirt_guests';

export const usesGoldenImage = (layout: LibvirtLayout) => [...layout.placed.values()].some((e) => e.golden);

/**
 * The images a hypervisor caches at prepare-provider. Those only its first Windows guest as
 * installed uses (the Windows and virtio-win ISOs, with the golden image) are needed only to make
 * the golden volume: marked with it, they are fetched only where the pool lacks it, which
 * libvirt_images decides on the hypervisor with create-hosts' own test.
 */
function preparedImages(entry: PlacedOnHypervisor) {
  const golden = entry.golden;
  if (!golden) return entry.images;
  const usedByGuests = new Set(
    entry.guests.flatMap((g) =>
      g.disks.flatMap((d) =>
        d.source.kind === 'cached'
          ? [d.source.image.volume]
          : d.source.kind === 'overlay'
            ? [d.source.base.volume]
            : [],
      ),
    ),
  );
  return entry.images.map((image) =>
    usedByGuests.has(image.volume) ? image : { ...image, onlyWithout: golden.volume },
  );
}

/** The first Windows guest's installed disk size, for preflight's count of the golden volume's making. */
function goldenPreflight(golden: NonNullable<PlacedOnHypervisor['golden']>) {
  const installDiskGiB = golden.install.disks.reduce(
    (sum, d) => sum + (d.source.kind === 'blank' ? d.source.sizeGiB : 0),
    0,
  );
  return { volume: golden.volume, installDiskGiB };
}

export function prepareSteps(layout: LibvirtLayout, common: LibvirtCommon): PlanStep[] {
  return [
    libvirtPreflightStep(
      {
        ...common,
        cidr: layout.cidr,
        hypervisors: byHypervisor(layout, (entry) => ({
          network: { name: entry.network.name, bridge: entry.network.bridge },
          ...(entry.tunnel
            ? {
                tunnel: {
                  device: entry.tunnel.device,
                  vni: entry.tunnel.vni,
                  port: entry.tunnel.port,
                  peers: entry.tunnel.peers,
                },
              }
            : {}),
          guests: entry.guests.map((g) => ({
            domain: g.domain,
            os: g.os,
            vcpus: g.vcpus,
            memoryMiB: g.memoryMiB,
            diskGiB: g.disks.reduce(
              (sum, d) =>
                sum +
                (d.source.kind === 'overlay' ||
                d.source.kind === 'golden-overlay' ||
                d.source.kind === 'blank'
                  ? d.source.sizeGiB
                  : 0),
              0,
            ),
          })),
          images: preparedImages(entry),
          ...(entry.golden ? { golden: goldenPreflight(entry.golden) } : {}),
        })),
      },
      {
        name: 'check the hypervisor: libvirt, KVM, tools, RAM, disk, vCPUs, names, network and tunnel in use',
        register: 'libvirt_host',
      },
    ),
    {
      name: 'report what the hypervisor check warns about',
      module: 'debug',
      args: { msg: '{{ libvirt_host.warning }}' },
      keywords: { when: "libvirt_host.warning != ''" },
    },
    libvirtImagesStep(
      { ...common, hypervisors: byHypervisor(layout, preparedImages) },
      {
        name: usesGoldenImage(layout)
          ? 'cache the base images in the storage pool (downloaded and verified once per hypervisor; the Windows install media only where the pool has no golden volume)'
          : 'cache the base images in the storage pool (downloaded and verified once per hypervisor)',
      },
    ),
  ];
}

export function networkSteps(layout: LibvirtLayout, common: LibvirtCommon): PlanStep[] {
  const steps: PlanStep[] = [
    libvirtNetworkStep(
      { ...common, hypervisors: byHypervisor(layout, (entry) => entry.network) },
      { name: 'define and start the network' },
    ),
  ];
  if (layout.placed.size > 1)
    steps.push(
      libvirtTunnelStep(
        { ...common, hypervisors: byHypervisor(layout, (entry) => entry.tunnel) },
        { name: 'join the network to the other hypervisors (VXLAN)' },
      ),
    );
  return steps;
}

export function createSteps(layout: LibvirtLayout, common: LibvirtCommon): PlanStep[] {
  const windows = [...layout.placed.values()].some((e) => e.guests.some((g) => g.os === 'windows'));
  const steps: PlanStep[] = [];
  if (windows)
    steps.push(
      libvirtWindowsPasswordsStep(
        {
          nodes: byHypervisor(layout, (entry) =>
            entry.guests.filter((g) => g.os === 'windows').map((g) => g.node),
          ),
          known: `{{ outputs.${WINDOWS_PASSWORDS_OUTPUT} | default({}) }}`,
        },
        {
          name: 'Administrator passwords of the Windows guests (generated once, kept in secrets.json)',
          register: WINDOWS_PASSWORDS_OUTPUT,
          secret: true,
        },
      ),
    );
  steps.push(
    libvirtGuestsStep(guestsArgs(layout, common, windows), {
      name: usesGoldenImage(layout)
        ? 'create and start the guests (Windows: overlays on the golden volume; without it, the first Windows guest of each hypervisor installs from the ISO and the others wait for the golden image)'
        : 'create and start the guests',
      ...(usesGoldenImage(layout) ? { register: GUESTS_OUTPUT } : {}),
    }),
  );
  return steps;
}

/** libvirt_guests' arguments: create-hosts and the golden image task give the same. */
export function guestsArgs(
  layout: LibvirtLayout,
  common: LibvirtCommon,
  windows: boolean,
): Parameters<typeof libvirtGuestsStep>[0] {
  const withGolden = [...layout.placed].flatMap(([name, entry]) =>
    entry.golden ? [[name, entry.golden] as const] : [],
  );
  return {
    ...common,
    accel: '{{ outputs.libvirt_host.accel }}',
    ...(windows ? { passwords: `{{ outputs.${WINDOWS_PASSWORDS_OUTPUT} | default({}) }}` } : {}),
    hypervisors: byHypervisor(layout, (entry) => entry.guests),
    ...(withGolden.length > 0 ? { golden: Object.fromEntries(withGolden) } : {}),
  };
}
