import { UsageError } from '../../errors/index.js';
import { addressInCidr } from '../../spec/cidr.js';
import {
  type ClusterSpec,
  DEFAULT_WINDOWS_VERSION,
  LIBVIRT_FIRST_GUEST_OFFSET as FIRST_GUEST_OFFSET,
  type LibvirtProvider as LibvirtSpec,
} from '../../spec/schema.js';
import { credentialFieldsAt, type InventoryHost, type JumpHost } from '../../types/inventory.js';
import { namesThisMachine } from '../../types/localhost.js';
import type { NodeRequest, ProviderContext } from '../types.js';
import type { GuestDefinition } from './guest.js';
import { GUEST_BUILDERS, type GuestInput } from './guest-os.js';
import { type CachedImage, cachedImage, defaultLinuxImage } from './image.js';
import { bridgeName, macAddress, networkName, tunnelName, tunnelVni } from './names.js';
import type { NetworkDefinition } from './network-xml.js';
import { guestDeviceVars, nodeHost } from './node-host.js';
import { placeNodes } from './placement.js';
import { TUNNEL_GUEST_MTU, type TunnelDefinition } from './tunnel.js';
import { computerNames } from './windows/computer-name.js';
import { type GoldenImage, goldenImage } from './windows/golden-cache.js';
import { defaultWindowsImage } from './windows/guest.js';
import { windowsGoldenGuest } from './windows-golden-guest.js';
import { windowsGuest } from './windows-guest.js';

/** libvirt URI on the hypervisors unless the spec names one. */
export const DEFAULT_LIBVIRT_URI = 'qemu:///system';
/**
 * The `uri` argument of every libvirt step: each hypervisor's own (hypervisors[].uri, else
 * provider.uri, else qemu:///system), from its host variables, or the guest's hypervisor's for
 * steps a guest delegates to it.
 */
export const HYPERVISOR_URI = '{{ libvirt_uri }}';
/** Sizes of guests whose group gives none (kubeadm's minimum is 2 CPUs and 2 GB for a controller). */
const DEFAULT_SIZE = {
  linux: { vcpus: 2, memoryGiB: 2, diskGiB: 20 },
  windows: { vcpus: 2, memoryGiB: 4, diskGiB: 40 },
} as const;
const PENDING_KEY = '(the cluster SSH key, generated into the cluster directory by kubemix up)';

/** A spec whose provider is libvirt. */
export type LibvirtClusterSpec = ClusterSpec & { provider: LibvirtSpec };

/**
 * The hypervisors as inventory hosts: `localhost` runs commands locally, others over SSH with
 * their host keys checked strictly (against provider.knownHosts when the spec gives one).
 */
export function hypervisorHosts(provider: LibvirtSpec): InventoryHost[] {
  return provider.hypervisors.map((hv, index) => {
    const local = namesThisMachine(hv.address);
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
    const credentialFields = credentialFieldsAt(hv.credentials, `provider.hypervisors.${index}.credentials`);
    if (credentialFields && !local) host.credentialFields = credentialFields;
    host.vars = {
      libvirt_uri: hv.uri ?? provider.uri ?? DEFAULT_LIBVIRT_URI,
      ...(!local && provider.knownHosts ? { kubemix_known_hosts: [provider.knownHosts] } : {}),
    };
    return host;
  });
}

/** What one hypervisor that gets guests holds of the cluster. */
export interface PlacedOnHypervisor {
  guests: GuestDefinition[];
  network: NetworkDefinition;
  /** With several hypervisors: the VXLAN device joining this one's bridge to the others'. */
  tunnel?: TunnelDefinition;
  images: CachedImage[];
  /**
   * With `windows.goldenImage`: the golden volume this hypervisor's Windows guests are overlays
   * on, and the first of them as installed from the ISO — what create-hosts makes instead of its
   * overlay when the volume is not in the pool yet (it is then generalized and captured).
   */
  golden?: { volume: string; install: GuestDefinition };
}

/** Everything the libvirt tasks know about one cluster, computed once from the spec. */
export interface LibvirtLayout {
  cluster: string;
  dataDir: string;
  pool: string;
  /** The guest network's range and DNS domain (the same on every hypervisor). */
  cidr: string;
  dnsDomain: string;
  hypervisors: InventoryHost[];
  /** Per hypervisor that gets guests, in the spec's order: the first is the gateway. */
  placed: Map<string, PlacedOnHypervisor>;
  nodes: InventoryHost[];
  images: { linux?: CachedImage; windows?: CachedImage; virtio?: CachedImage };
}

/** The images the spec's nodes need (Windows media only when a Windows node exists). */
function layoutImages(
  spec: LibvirtClusterSpec,
  requests: NodeRequest[],
  context: ProviderContext,
): LibvirtLayout['images'] {
  const provider = spec.provider;
  const images: LibvirtLayout['images'] = {};
  if (requests.some((r) => r.os === 'linux'))
    images.linux = cachedImage(provider.images.linux ?? defaultLinuxImage(context.versions), 'qcow2');
  if (provider.images.windows) images.windows = cachedImage(provider.images.windows, 'iso');
  if (provider.images.virtio) images.virtio = cachedImage(provider.images.virtio, 'iso');
  return images;
}

/** The networks (and with several hypervisors, the tunnels) of the hypervisors that get guests. */
function hypervisorNetworks(
  spec: LibvirtClusterSpec,
  active: InventoryHost[],
): Map<string, Pick<PlacedOnHypervisor, 'network' | 'tunnel'>> {
  const cluster = spec.name;
  const several = active.length > 1;
  const vni = spec.provider.tunnel.vni ?? tunnelVni(cluster);
  return new Map(
    active.map((hv, index) => {
      const network: NetworkDefinition = {
        name: networkName(cluster, hv.name),
        bridge: bridgeName(cluster, hv.name),
        cidr: spec.provider.network.cidr,
        dnsDomain: `${cluster}.kubemix.internal`,
        role: index === 0 ? 'gateway' : 'bridged',
        address: addressInCidr(spec.provider.network.cidr, 1 + index),
        reservations: [],
        ...(several ? { mtu: TUNNEL_GUEST_MTU } : {}),
      };
      const tunnel: TunnelDefinition | undefined = several
        ? {
            device: tunnelName(cluster, hv.name),
            bridge: network.bridge,
            vni,
            port: spec.provider.tunnel.port,
            peers: active.filter((other) => other !== hv).map((other) => other.address),
            mtu: TUNNEL_GUEST_MTU,
          }
        : undefined;
      return [hv.name, { network, ...(tunnel ? { tunnel } : {}) }];
    }),
  );
}

/** Adds the cached images a guest's disks use to its hypervisor's list (each once). */
function addImages(entry: PlacedOnHypervisor, guest: GuestDefinition): void {
  for (const disk of guest.disks)
    if (disk.source.kind === 'cached' || disk.source.kind === 'overlay') {
      const image = disk.source.kind === 'cached' ? disk.source.image : disk.source.base;
      if (!entry.images.some((i) => i.volume === image.volume)) entry.images.push(image);
    }
}

/** The golden volume a Windows guest is an overlay on, with `windows.goldenImage` (else none). */
function goldenFor(
  spec: LibvirtClusterSpec,
  images: LibvirtLayout['images'],
  input: GuestInput,
): GoldenImage | undefined {
  if (!spec.provider.windows.goldenImage || !images.windows || !input.windows) return undefined;
  return goldenImage({
    windowsIso: images.windows,
    ...(images.virtio ? { virtioIso: images.virtio } : {}),
    version: input.windows.version,
    image: defaultWindowsImage(input.windows.version),
  });
}

/**
 * A regular expression for the lines of a known_hosts file that name `address` (alone or in a
 * comma-separated list, as `address` or `[address]:port`, the forms OpenSSH's sshd(8) "SSH_KNOWN_HOSTS
 * FILE FORMAT" gives and accept-new writes).
 */
function knownHostsLinePattern(address: string, port: number): string {
  const escaped = address.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return `^(?:\\S*,)?(?:${escaped}|\\[${escaped}\\]:${port})(?:,\\S*)?\\s`;
}

/**
 * What the golden image task's steps on a hypervisor know of its first Windows guest as installed
 * from the ISO (host variables of the hypervisor): where to watch the install, log in, eject the
 * config ISO, which disk to capture into which golden volume, and which known_hosts lines hold the
 * install's SSH host key (its overlay, at the same address, makes its own).
 */
function goldenFirstVars(golden: NonNullable<PlacedOnHypervisor['golden']>, node: InventoryHost) {
  const install = golden.install;
  const devices = guestDeviceVars(install);
  return {
    golden_volume: golden.volume,
    golden_first: {
      node: install.node,
      domain: install.domain,
      address: install.ip,
      port: node.vars?.['libvirt_wait_port'],
      disk_volume: install.disks.find((d) => d.device === 'disk')?.volume,
      disk_target: devices.libvirt_system_disk,
      config_volume: devices.libvirt_config_volume,
      config_target: devices.libvirt_config_target,
      known_hosts_line: knownHostsLinePattern(install.ip, Number(node.vars?.['libvirt_wait_port'] ?? 22)),
    },
  };
}

/** Which way a Windows guest comes to be with the golden image, as `plan` shows it. */
function goldenPath(entry: PlacedOnHypervisor, node: string): string {
  const golden = entry.golden!;
  return golden.install.node === node
    ? `installs from ISO, then generalized into ${golden.volume}; overlay on it from the start if the hypervisor has it (decided at create-hosts)`
    : `overlay on ${golden.volume}`;
}

/** Windows computer names by node (two nodes with one name are bad input: rename a group). */
function windowsComputerNames(requests: NodeRequest[]): Map<string, string> {
  try {
    return computerNames(requests.filter((r) => r.os === 'windows').map((r) => r.name));
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

/**
 * Works out names, addresses, MACs, placement, networks, the tunnel and guest definitions. Pure.
 * Every node's DHCP reservation lives on the gateway hypervisor's network (the first one that
 * gets guests), which the others' guests reach across the tunnel.
 */
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
  const active = hypervisors.filter((h) => requests.some((r) => placement.get(r.name) === h.name));
  if (active.length >= FIRST_GUEST_OFFSET)
    throw new UsageError(
      `guests are placed on ${active.length} hypervisors; kubemix joins at most ${FIRST_GUEST_OFFSET - 1} (each takes an address of the cluster network below the guests')`,
    );
  const networks = hypervisorNetworks(spec, active);
  const images = layoutImages(spec, requests, context);
  const placed = new Map<string, PlacedOnHypervisor>(
    active.map((hv) => [hv.name, { ...networks.get(hv.name)!, guests: [], images: [] }]),
  );
  const gateway = active[0] ? placed.get(active[0].name) : undefined;
  // Guests are reached through the gateway hypervisor when it is not the machine running kubemix.
  const gatewayHost = active[0];
  const jump: JumpHost | undefined =
    gatewayHost && gatewayHost.connection === 'ssh'
      ? {
          name: gatewayHost.name,
          address: gatewayHost.address,
          ...(gatewayHost.port === undefined ? {} : { port: gatewayHost.port }),
          ...(gatewayHost.credentials ? { credentials: gatewayHost.credentials } : {}),
          ...(provider.knownHosts ? { knownHostsFiles: [provider.knownHosts] } : {}),
        }
      : undefined;
  const computers = windowsComputerNames(requests);
  const nodes = requests.map((request, index) => {
    const hypervisor = placement.get(request.name)!;
    const entry = placed.get(hypervisor)!;
    const ip = addressInCidr(provider.network.cidr, FIRST_GUEST_OFFSET + index);
    const size = DEFAULT_SIZE[request.os];
    const computerName = computers.get(request.name);
    const input: GuestInput = {
      cluster,
      node: request.name,
      hypervisor,
      vcpus: request.vcpus ?? size.vcpus,
      memoryMiB: Math.round((request.memoryGiB ?? size.memoryGiB) * 1024),
      diskGiB: request.diskGiB ?? size.diskGiB,
      ip,
      mac: macAddress(cluster, request.name),
      network: entry.network.name,
      ...(entry.network.mtu === undefined ? {} : { mtu: entry.network.mtu }),
      dnsDomain: entry.network.dnsDomain,
      dataDir: provider.dataDir,
      publicKey: context.publicKey ?? PENDING_KEY,
      connection: request.connection,
      images,
      ...(computerName
        ? { windows: { version: request.windowsVersion ?? DEFAULT_WINDOWS_VERSION, computerName } }
        : {}),
    };
    const golden = request.os === 'windows' ? goldenFor(spec, images, input) : undefined;
    const guest = golden ? windowsGoldenGuest(input, golden) : GUEST_BUILDERS[request.os](input);
    if (golden && !entry.golden) {
      // The first Windows guest of the hypervisor is installed when the golden volume is missing.
      const install = windowsGuest(input);
      entry.golden = { volume: golden.volume, install };
      addImages(entry, install);
    }
    entry.guests.push(guest);
    gateway?.network.reservations.push({ mac: guest.mac, ip, hostname: request.name });
    addImages(entry, guest);
    const uri = hypervisors.find((h) => h.name === hypervisor)?.vars?.['libvirt_uri'] as string;
    const node = nodeHost({ request, guest, clusterDir: context.clusterDir, jump, uri });
    if (golden) node.vars = { ...node.vars, libvirt_golden: goldenPath(entry, request.name) };
    if (entry.golden?.install.node === request.name) {
      const hv = hypervisors.find((h) => h.name === hypervisor)!;
      hv.vars = { ...hv.vars, ...goldenFirstVars(entry.golden, node) };
    }
    return node;
  });
  return {
    cluster,
    dataDir: provider.dataDir,
    pool: provider.storagePool,
    cidr: provider.network.cidr,
    dnsDomain: `${cluster}.kubemix.internal`,
    hypervisors,
    placed,
    nodes,
    images,
  };
}
