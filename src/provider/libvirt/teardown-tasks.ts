import { DEFAULT_WINDOWS_VERSION } from '../../spec/spec-defaults.js';
import type { ProviderContext, ProviderTeardown, TeardownInput } from '../types.js';
import { type CachedImage, cachedImage, defaultLinuxImage } from './image.js';
import { HYPERVISOR_URI, hypervisorHosts, type LibvirtClusterSpec } from './layout.js';
import { libvirtDestroyGuestsStep, libvirtDestroyNetworkStep } from './modules/destroy.js';
import { libvirtLeakCheckStep } from './modules/leak-check.js';
import { bridgeName, networkName, tunnelName } from './names.js';
import { goldenImage } from './windows/golden-cache.js';
import { defaultWindowsImage } from './windows/guest.js';

/**
 * `down`'s provider tasks: destroy what the state records on each hypervisor, then the network and
 * tunnel, then look for anything of the cluster left.
 */
export function libvirtTeardown(
  libvirt: LibvirtClusterSpec,
  input: TeardownInput,
  context: ProviderContext,
): ProviderTeardown {
  const provider = libvirt.provider;
  const locations = new Set(input.resources.filter((r) => r.provider === 'libvirt').map((r) => r.location));
  const hosts = hypervisorHosts(provider).filter((h) => locations.has(h.name));
  // What the state records as possibly existing, per hypervisor: `plan --down` shows it, and a
  // teardown resumed after new resources were recorded runs again (its definition changed).
  const recorded = Object.fromEntries(
    hosts.map((h) => [
      h.name,
      input.resources
        .filter((r) => r.provider === 'libvirt' && r.location === h.name && r.status !== 'deleted')
        .map((r) => `${r.kind} ${r.name}`),
    ]),
  );
  const common = {
    uri: HYPERVISOR_URI,
    cluster: libvirt.name,
    dataDir: provider.dataDir,
    pool: provider.storagePool,
  };
  const names = { cidr: provider.network.cidr, hypervisors: namesByHypervisor(libvirt) };
  const purge = input.purgeImages
    ? [
        ...Object.values(libvirtImages(libvirt, context)).map((image) => image.volume),
        ...goldenVolumes(libvirt),
      ]
    : [];
  return {
    tasks: [
      {
        name: 'destroy-hosts',
        description:
          'Stop and undefine the guests, delete their volumes and files (console logs kept in the cluster directory)',
        hosts,
        steps: [
          libvirtDestroyGuestsStep(
            { ...common, consoleDir: `${context.clusterDir}/console`, purgeImages: purge, recorded },
            { name: 'destroy the guests recorded in the state' },
          ),
        ],
      },
      {
        name: 'destroy-network',
        description: 'Remove the tunnel, the network and what libvirt left of it on each hypervisor',
        hosts,
        steps: [
          libvirtDestroyNetworkStep(
            { ...common, ...names, recorded },
            { name: 'destroy the tunnel and the network' },
          ),
        ],
      },
      {
        name: 'check-leaks',
        description:
          'Nothing of the cluster is left on the hypervisors (domains, volumes, networks, bridges, tunnels, dnsmasq, files, firewall rules)',
        hosts,
        steps: [libvirtLeakCheckStep({ ...common, ...names }, { name: 'look for anything left' })],
      },
    ],
  };
}

/** The names by which the cluster's per-hypervisor resources are found, for every hypervisor of the spec. */
export function namesByHypervisor(spec: LibvirtClusterSpec) {
  return Object.fromEntries(
    hypervisorHosts(spec.provider).map((hv) => [
      hv.name,
      {
        network: networkName(spec.name, hv.name),
        bridge: bridgeName(spec.name, hv.name),
        tunnel: tunnelName(spec.name, hv.name),
      },
    ]),
  );
}

/** The cached images a spec uses (for --purge-images). */
function libvirtImages(spec: LibvirtClusterSpec, context: ProviderContext): Record<string, CachedImage> {
  const images: Record<string, CachedImage> = {
    linux: cachedImage(spec.provider.images.linux ?? defaultLinuxImage(context.versions), 'qcow2'),
  };
  if (spec.provider.images.windows) images['windows'] = cachedImage(spec.provider.images.windows, 'iso');
  if (spec.provider.images.virtio) images['virtio'] = cachedImage(spec.provider.images.virtio, 'iso');
  return images;
}

/**
 * The golden Windows volumes of a spec with `windows.goldenImage` (one per Windows version of its
 * groups), for --purge-images: like the other cached images, deleted only when no volume of
 * another cluster still uses them.
 */
function goldenVolumes(spec: LibvirtClusterSpec): string[] {
  const windowsIso = spec.provider.images.windows;
  if (!spec.provider.windows.goldenImage || !windowsIso) return [];
  const virtio = spec.provider.images.virtio;
  const versions = new Set(
    spec.nodes.workers
      .filter((g) => g.os === 'windows')
      .map((g) => g.windowsVersion ?? DEFAULT_WINDOWS_VERSION),
  );
  return [...versions].map(
    (version) =>
      goldenImage({
        windowsIso: cachedImage(windowsIso, 'iso'),
        ...(virtio ? { virtioIso: cachedImage(virtio, 'iso') } : {}),
        version,
        image: defaultWindowsImage(version),
      }).volume,
  );
}
