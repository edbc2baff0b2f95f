import { addressInCidr } from '../../spec/cidr.js';
import type { ClusterSpec, LibvirtProvider as LibvirtSpec } from '../../spec/schema.js';
import type { InventoryHost } from '../../types/inventory.js';
import { defaultPort } from '../node-defaults.js';
import type { NodeRequest, ProviderContext } from '../types.js';
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

/** A spec whose provider is libvirt. */
export type LibvirtClusterSpec = ClusterSpec & { provider: LibvirtSpec };

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
