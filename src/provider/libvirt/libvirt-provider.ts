import { addressInCidr } from '../../spec/cidr.js';
import type { ClusterSpec, LibvirtProvider as LibvirtSpec } from '../../spec/schema.js';
import type { InventoryHost } from '../../types/inventory.js';
import type { PlanStep } from '../../types/plan.js';
import { defaultPort } from '../node-defaults.js';
import type {
  NodeRequest,
  Provider,
  ProviderContext,
  ProviderPlan,
  ProviderTask,
  ProviderTeardown,
  TeardownInput,
} from '../types.js';
import type { GuestDefinition } from './guest.js';
import { GUEST_BUILDERS } from './guest-os.js';
import { type CachedImage, cachedImage, defaultLinuxImage } from './image.js';
import { bridgeName, domainName, macAddress, networkName } from './names.js';
import type { NetworkDefinition } from './network-xml.js';
import { placeNodes } from './placement.js';

/** libvirt URI on the hypervisors unless the spec names one. */
export const DEFAULT_LIBVIRT_URI = 'qemu:///system';
/** Guests' first address in the network: .1 is the gateway, room is left for services. */
const FIRST_GUEST_OFFSET = 11;
/** Sizes of guests whose group gives none (kubeadm's minimum is 2 CPUs and 2 GB for a controller). */
const DEFAULT_SIZE = {
  linux: { vcpus: 2, memoryGiB: 2, diskGiB: 20 },
  windows: { vcpus: 2, memoryGiB: 4, diskGiB: 40 },
} as const;
/** The cluster key kubemix generates into the cluster directory (see cluster-key.ts). */
export const CLUSTER_KEY_FILE = 'id_ed25519';
const PENDING_KEY = '(the cluster SSH key, generated into the cluster directory by kubemix up)';

type LibvirtClusterSpec = ClusterSpec & { provider: LibvirtSpec };

/** The hypervisors as inventory hosts: `localhost` runs commands locally, others over SSH. */
export function hypervisorHosts(provider: LibvirtSpec): InventoryHost[] {
  return provider.hypervisors.map((hv) => {
    const local = hv.address === 'localhost' || hv.address === '127.0.0.1';
    const host: InventoryHost = {
      name: hv.name,
      address: hv.address,
      os: 'linux',
      connection: local ? 'local' : 'ssh',
      role: 'hypervisor',
      group: 'hypervisors',
      hostKeyPolicy: 'strict',
    };
    if (!local) host.port = hv.port ?? 22;
    if (hv.credentials) host.credentials = hv.credentials;
    return host;
  });
}

/** Everything the libvirt tasks know about one cluster, computed once from the spec. */
export interface LibvirtLayout {
  uri: string;
  cluster: string;
  dataDir: string;
  pool: string;
  network: Omit<NetworkDefinition, 'reservations'>;
  hypervisors: InventoryHost[];
  /** Per hypervisor that gets guests: its guests (complete, or undefined for an OS not built yet), network and images. */
  placed: Map<string, { guests: GuestDefinition[]; network: NetworkDefinition; images: CachedImage[] }>;
  nodes: InventoryHost[];
  /** Nodes whose OS has no guest builder yet. */
  unbuilt: string[];
  images: { linux?: CachedImage; windows?: CachedImage; virtio?: CachedImage };
}

/** Works out names, addresses, MACs, placement and guest definitions. Pure. */
export function libvirtLayout(
  spec: LibvirtClusterSpec,
  requests: NodeRequest[],
  context: ProviderContext,
): LibvirtLayout {
  const provider = spec.provider;
  const cluster = spec.name;
  const hypervisors = hypervisorHosts(provider);
  const placement = placeNodes(
    requests.map((r) => r.name),
    hypervisors.map((h) => h.name),
  );
  const needsLinux = requests.some((r) => r.os === 'linux');
  const images: LibvirtLayout['images'] = {};
  if (needsLinux)
    images.linux = cachedImage(provider.images.linux ?? defaultLinuxImage(context.versions), 'qcow2');
  if (provider.images.windows) images.windows = cachedImage(provider.images.windows, 'iso');
  if (provider.images.virtio) images.virtio = cachedImage(provider.images.virtio, 'iso');
  const network = {
    name: networkName(cluster),
    bridge: bridgeName(cluster),
    cidr: provider.network.cidr,
    dnsDomain: `${cluster}.kubemix.internal`,
  };
  const dataDir = provider.dataDir;
  const placed: LibvirtLayout['placed'] = new Map();
  const nodes: InventoryHost[] = [];
  const unbuilt: string[] = [];
  requests.forEach((request, index) => {
    const hypervisor = placement.get(request.name)!;
    const ip = addressInCidr(network.cidr, FIRST_GUEST_OFFSET + index);
    const mac = macAddress(cluster, request.name);
    const size = DEFAULT_SIZE[request.os];
    const builder = GUEST_BUILDERS[request.os];
    const entry = placed.get(hypervisor) ?? {
      guests: [],
      network: { ...network, reservations: [] },
      images: [],
    };
    placed.set(hypervisor, entry);
    entry.network.reservations.push({ mac, ip, hostname: request.name });
    const wanted = request.os === 'linux' ? [images.linux] : [images.windows, images.virtio];
    for (const image of wanted)
      if (image && !entry.images.some((i) => i.volume === image.volume)) entry.images.push(image);
    if (builder) {
      entry.guests.push(
        builder({
          cluster,
          node: request.name,
          hypervisor,
          vcpus: request.vcpus ?? size.vcpus,
          memoryMiB: Math.round((request.memoryGiB ?? size.memoryGiB) * 1024),
          diskGiB: request.diskGiB ?? size.diskGiB,
          ip,
          mac,
          network: network.name,
          dnsDomain: network.dnsDomain,
          dataDir,
          publicKey: context.publicKey ?? PENDING_KEY,
          images,
        }),
      );
    } else unbuilt.push(request.name);
    const host: InventoryHost = {
      name: request.name,
      address: ip,
      os: request.os,
      connection: request.connection,
      role: request.role,
      group: request.group,
      // Guests make their host keys at first boot: trusted on first use, kept in the cluster's known_hosts.
      hostKeyPolicy: 'accept-new',
      createdBy: 'libvirt',
      vars: {
        ...request.vars,
        hypervisor,
        libvirt_domain: domainName(cluster, request.name),
        mac,
        kubemix_address: 'reserved',
      },
    };
    const port = defaultPort(request.connection);
    if (port !== undefined) host.port = port;
    if (request.os === 'linux')
      host.credentials = { user: 'root', privateKey: { file: `${context.clusterDir}/${CLUSTER_KEY_FILE}` } };
    else if (request.credentials) host.credentials = request.credentials;
    if (request.windowsVersion) host.windowsVersion = request.windowsVersion;
    nodes.push(host);
  });
  return {
    uri: provider.uri ?? DEFAULT_LIBVIRT_URI,
    cluster,
    dataDir,
    pool: provider.storagePool,
    network,
    hypervisors,
    placed,
    nodes,
    unbuilt,
    images,
  };
}

const byHypervisor = <T>(
  layout: LibvirtLayout,
  pick: (entry: LibvirtLayout['placed'] extends Map<string, infer E> ? E : never) => T,
) => Object.fromEntries([...layout.placed].map(([name, entry]) => [name, pick(entry)]));

/**
 * Guests on one or more KVM/QEMU hypervisors through libvirt (`virsh`, `qemu-img` and the ISO
 * tool run on each hypervisor over kubemix's own transport: local, or SSH with host keys checked).
 * Addresses are DHCP reservations made before boot, so `plan` shows them.
 */
export class LibvirtProvider implements Provider {
  readonly type = 'libvirt' as const;

  plan(spec: ClusterSpec, requests: NodeRequest[], context: ProviderContext): ProviderPlan {
    const layout = libvirtLayout(asLibvirt(spec), requests, context);
    const common = { uri: layout.uri, cluster: layout.cluster, dataDir: layout.dataDir, pool: layout.pool };
    const active = layout.hypervisors.filter((h) => layout.placed.has(h.name));
    const prepareSteps: PlanStep[] = [
      {
        name: 'check the hypervisor: libvirt, KVM, tools, RAM, disk, vCPUs, names and network in use',
        module: 'libvirt_preflight',
        register: 'libvirt_host',
        args: {
          ...common,
          network: { name: layout.network.name, bridge: layout.network.bridge, cidr: layout.network.cidr },
          hypervisors: byHypervisor(layout, (entry) => ({
            guests: entry.guests.map((g) => ({
              domain: g.domain,
              os: g.os,
              vcpus: g.vcpus,
              memoryMiB: g.memoryMiB,
              diskGiB: g.disks.reduce((sum, d) => sum + ('sizeGiB' in d.source ? d.source.sizeGiB : 0), 0),
            })),
            images: entry.images,
            missingImages: missingImages(
              layout,
              entry.network.reservations.map((r) => r.hostname),
              requests,
            ),
          })),
        },
      },
      {
        name: 'report what the hypervisor check warns about',
        module: 'debug',
        args: { msg: '{{ libvirt_host.warning }}' },
        keywords: { when: "libvirt_host.warning != ''" },
      },
      {
        name: 'cache the base images in the storage pool (downloaded and verified once per hypervisor)',
        module: 'libvirt_images',
        args: { ...common, hypervisors: byHypervisor(layout, (entry) => entry.images) },
      },
    ];
    return {
      providerHosts: layout.hypervisors,
      nodes: layout.nodes,
      prepare: {
        description: 'Check and prepare each hypervisor: libvirt, KVM, resources, storage pool, base images',
        hosts: active,
        steps: prepareSteps,
      },
      createNetwork: {
        description: `Create the libvirt NAT network ${layout.network.name} (${layout.network.cidr}) with a DHCP reservation per node`,
        hosts: active,
        steps: [
          {
            name: 'define and start the network',
            module: 'libvirt_network',
            args: { ...common, hypervisors: byHypervisor(layout, (entry) => entry.network) },
          },
        ],
      },
      createHosts: {
        description: 'Create the guests: disk overlays, first-boot configuration, domains, started',
        hosts: active,
        steps:
          layout.unbuilt.length > 0
            ? undefined
            : [
                {
                  name: 'create and start the guests',
                  module: 'libvirt_guests',
                  args: {
                    ...common,
                    accel: '{{ outputs.libvirt_host.accel }}',
                    hypervisors: byHypervisor(layout, (entry) => entry.guests),
                  },
                },
              ],
      },
      // Cloud images boot in ~30-60 s under emulation, Windows installs take far longer.
      waitTimeoutSec: 900,
      waitSteps: [
        {
          name: 'cloud-init finished (it restarts sshd: retried)',
          module: 'command',
          args: { cmd: 'cloud-init status --wait' },
          os: 'linux',
          retries: 8,
          delayMs: 2000,
          register: 'cloud_init_status',
          keywords: {
            changedWhen: false,
            // 2: done with recoverable errors (cloud-init 23.4+), e.g. deprecated keys.
            failedWhen: 'cloud_init_status.rc != 0 and cloud_init_status.rc != 2',
          },
        },
      ],
    };
  }

  inspect(spec: ClusterSpec): ProviderTask {
    const provider = asLibvirt(spec).provider;
    const cluster = spec.name;
    return {
      description: 'What of the cluster exists on each hypervisor',
      hosts: hypervisorHosts(provider),
      steps: [
        {
          name: 'inspect',
          module: 'libvirt_inspect',
          args: {
            uri: provider.uri ?? DEFAULT_LIBVIRT_URI,
            cluster,
            dataDir: provider.dataDir,
            pool: provider.storagePool,
            network: networkName(cluster),
            bridge: bridgeName(cluster),
            cidr: provider.network.cidr,
          },
        },
      ],
    };
  }

  teardown(spec: ClusterSpec, input: TeardownInput, context: ProviderContext): ProviderTeardown {
    const provider = asLibvirt(spec).provider;
    const cluster = spec.name;
    const locations = new Set(input.resources.filter((r) => r.provider === 'libvirt').map((r) => r.location));
    const hosts = hypervisorHosts(provider).filter((h) => locations.has(h.name));
    const common = {
      uri: provider.uri ?? DEFAULT_LIBVIRT_URI,
      cluster,
      dataDir: provider.dataDir,
      pool: provider.storagePool,
    };
    const network = {
      network: networkName(cluster),
      bridge: bridgeName(cluster),
      cidr: provider.network.cidr,
    };
    const purge = input.purgeImages
      ? Object.values(libvirtImages(asLibvirt(spec), context)).map((image) => image.volume)
      : [];
    return {
      tasks: [
        {
          name: 'destroy-hosts',
          description:
            'Stop and undefine the guests, delete their volumes and files (console logs kept in the cluster directory)',
          hosts,
          steps: [
            {
              name: 'destroy the guests recorded in the state',
              module: 'libvirt_destroy_guests',
              args: { ...common, consoleDir: `${context.clusterDir}/console`, purgeImages: purge },
            },
          ],
        },
        {
          name: 'destroy-network',
          description: `Remove the network ${network.network} and what libvirt left of it`,
          hosts,
          steps: [
            {
              name: 'destroy the network',
              module: 'libvirt_destroy_network',
              args: { ...common, ...network },
            },
          ],
        },
        {
          name: 'check-leaks',
          description:
            'Nothing of the cluster is left on the hypervisors (domains, volumes, networks, bridges, dnsmasq, files, firewall rules)',
          hosts,
          steps: [
            { name: 'look for anything left', module: 'libvirt_leak_check', args: { ...common, ...network } },
          ],
        },
      ],
    };
  }
}

/** Images a Windows guest needs that the spec does not give (reported by the preflight as bad input). */
function missingImages(layout: LibvirtLayout, placedNodes: string[], requests: NodeRequest[]): string[] {
  const windows = requests.some((r) => r.os === 'windows' && placedNodes.includes(r.name));
  if (!windows) return [];
  const missing: string[] = [];
  if (!layout.images.windows)
    missing.push(
      'the Windows Server ISO (--windows-iso PATH|URL with --windows-iso-sha256, or provider.images.windows)',
    );
  return missing;
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

function asLibvirt(spec: ClusterSpec): LibvirtClusterSpec {
  if (spec.provider.type !== 'libvirt') throw new TypeError('LibvirtProvider plans libvirt specs only');
  return spec as LibvirtClusterSpec;
}
