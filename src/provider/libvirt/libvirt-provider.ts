import type { ClusterSpec } from '../../spec/schema.js';
import type { PlanStep } from '../../types/plan.js';
import type {
  NodeRequest,
  Provider,
  ProviderContext,
  ProviderPlan,
  ProviderTask,
  ProviderTeardown,
  TeardownInput,
} from '../types.js';
import { type CachedImage, cachedImage, defaultLinuxImage } from './image.js';
import {
  DEFAULT_LIBVIRT_URI,
  hypervisorHosts,
  type LibvirtClusterSpec,
  type LibvirtLayout,
  libvirtLayout,
} from './layout.js';
import { bridgeName, networkName } from './names.js';

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
              args: { ...common, consoleDir: `${context.clusterDir}/console`, purgeImages: purge, recorded },
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
              args: { ...common, ...network, recorded },
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
