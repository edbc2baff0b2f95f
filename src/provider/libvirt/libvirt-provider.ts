import { type ClusterSpec, DEFAULT_WINDOWS_VERSION } from '../../spec/schema.js';
import type { PlanStep } from '../../types/plan.js';
import { clusterKnownHostsPath } from '../cluster-key.js';
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
  HYPERVISOR_URI,
  hypervisorHosts,
  type LibvirtClusterSpec,
  type LibvirtLayout,
  libvirtLayout,
  type PlacedOnHypervisor,
} from './layout.js';
import { bridgeName, networkName, tunnelName } from './names.js';
import { WINDOWS_PASSWORDS_OUTPUT } from './node-host.js';
import { libvirtWaitSteps } from './wait-steps.js';
import { goldenImage } from './windows/golden-cache.js';
import { defaultWindowsImage } from './windows/guest.js';

const byHypervisor = <T>(layout: LibvirtLayout, pick: (entry: PlacedOnHypervisor) => T) =>
  Object.fromEntries([...layout.placed].map(([name, entry]) => [name, pick(entry)]));

/** The names by which the cluster's per-hypervisor resources are found, for every hypervisor of the spec. */
function namesByHypervisor(spec: LibvirtClusterSpec) {
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

function prepareSteps(layout: LibvirtLayout, common: Record<string, string>): PlanStep[] {
  return [
    {
      name: 'check the hypervisor: libvirt, KVM, tools, RAM, disk, vCPUs, names, network and tunnel in use',
      module: 'libvirt_preflight',
      register: 'libvirt_host',
      args: {
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
    },
    {
      name: 'report what the hypervisor check warns about',
      module: 'debug',
      args: { msg: '{{ libvirt_host.warning }}' },
      keywords: { when: "libvirt_host.warning != ''" },
    },
    {
      name: golden(layout)
        ? 'cache the base images in the storage pool (downloaded and verified once per hypervisor; the Windows install media only where the pool has no golden volume)'
        : 'cache the base images in the storage pool (downloaded and verified once per hypervisor)',
      module: 'libvirt_images',
      args: { ...common, hypervisors: byHypervisor(layout, preparedImages) },
    },
  ];
}

function networkSteps(layout: LibvirtLayout, common: Record<string, string>): PlanStep[] {
  const steps: PlanStep[] = [
    {
      name: 'define and start the network',
      module: 'libvirt_network',
      args: { ...common, hypervisors: byHypervisor(layout, (entry) => entry.network) },
    },
  ];
  if (layout.placed.size > 1)
    steps.push({
      name: 'join the network to the other hypervisors (VXLAN)',
      module: 'libvirt_tunnel',
      args: { ...common, hypervisors: byHypervisor(layout, (entry) => entry.tunnel) },
    });
  return steps;
}

function createSteps(layout: LibvirtLayout, common: Record<string, string>): PlanStep[] {
  const windows = [...layout.placed.values()].some((e) => e.guests.some((g) => g.os === 'windows'));
  const steps: PlanStep[] = [];
  if (windows)
    steps.push({
      name: 'Administrator passwords of the Windows guests (generated once, kept in secrets.json)',
      module: 'libvirt_windows_passwords',
      register: WINDOWS_PASSWORDS_OUTPUT,
      secret: true,
      args: {
        nodes: byHypervisor(layout, (entry) =>
          entry.guests.filter((g) => g.os === 'windows').map((g) => g.node),
        ),
        known: `{{ outputs.${WINDOWS_PASSWORDS_OUTPUT} | default({}) }}`,
      },
    });
  steps.push({
    name: golden(layout)
      ? 'create and start the guests (Windows: overlays on the golden volume; without it, the first Windows guest of each hypervisor installs from the ISO and the others wait for the golden image)'
      : 'create and start the guests',
    module: 'libvirt_guests',
    ...(golden(layout) ? { register: GUESTS_OUTPUT } : {}),
    args: guestsArgs(layout, common, windows),
  });
  return steps;
}

/** What create-hosts registers on each hypervisor: `golden` is `capture` when the golden volume must be made there. */
const GUESTS_OUTPUT = 'libvirt_guests';

const golden = (layout: LibvirtLayout) => [...layout.placed.values()].some((e) => e.golden);

/** libvirt_guests' arguments: create-hosts and the golden image task give the same. */
function guestsArgs(layout: LibvirtLayout, common: Record<string, string>, windows: boolean) {
  const withGolden = [...layout.placed].filter(([, entry]) => entry.golden);
  return {
    ...common,
    accel: '{{ outputs.libvirt_host.accel }}',
    ...(windows ? { passwords: `{{ outputs.${WINDOWS_PASSWORDS_OUTPUT} | default({}) }}` } : {}),
    hypervisors: byHypervisor(layout, (entry) => entry.guests),
    ...(withGolden.length > 0
      ? { golden: Object.fromEntries(withGolden.map(([name, entry]) => [name, entry.golden])) }
      : {}),
  };
}

/**
 * The golden image task, on each hypervisor with Windows guests. It first decides again whether
 * the golden volume is there (libvirt_guests, as create-hosts: a resumed run may find it made);
 * where it is not (`golden == 'capture'`), its first Windows guest, installed from the ISO, is watched until it
 * answers, its first logon awaited and its config ISO removed (as wait-for-hosts does), then it
 * is marked on the hypervisor (domain metadata) and generalized over its own connection, and the
 * hypervisor waits for sysprep's shut-off, captures the disk as the golden volume and removes the
 * installed guest. A resumed run that finds the mark (`golden == 'generalizing'`) only waits and
 * captures. Then, on every such hypervisor, the guests are made again: the first one and the
 * waiting ones as overlays.
 */
function goldenSteps(
  layout: LibvirtLayout,
  common: Record<string, string>,
  timeoutMinutes: number,
  /** The cluster's own known_hosts, on the machine running kubemix. */
  knownHosts: string,
): PlanStep[] {
  const capturing = { when: `outputs.${GUESTS_OUTPUT}.golden == 'capture'` };
  // A first guest marked before sysprep (a resumed run: `generalizing`) is only captured.
  const toCapture = { when: `outputs.${GUESTS_OUTPUT}.golden in ['capture', 'generalizing']` };
  // The playbook layer reads `when` before it connects (as Ansible does), and the delegate also
  // names the first guest only when capturing: otherwise it is a fresh overlay, or off after
  // sysprep, and a skipped step stays on the hypervisor (delegating to itself is no delegation).
  const onFirst = {
    ...capturing,
    delegateTo: `{{ golden_first.node if outputs.${GUESTS_OUTPUT}.golden == 'capture' else inventory_hostname }}`,
  };
  return [
    {
      // Decided again here, not taken from create-hosts: a resumed run may find the volume made.
      name: 'look for the golden volume again (with it, the Windows guests are made as overlays now)',
      module: 'libvirt_guests',
      register: GUESTS_OUTPUT,
      args: guestsArgs(layout, common, true),
    },
    {
      name: 'Windows unattended install of the first Windows guest (watched from the hypervisor)',
      module: 'libvirt_windows_install',
      args: {
        uri: common['uri'],
        domain: '{{ golden_first.domain }}',
        disk: '{{ golden_first.disk_target }}',
        address: '{{ golden_first.address }}',
        port: '{{ golden_first.port }}',
        timeoutMinutes,
      },
      keywords: capturing,
    },
    {
      name: 'first-logon script of the first Windows guest finished',
      module: 'windows_first_logon',
      args: { timeoutMinutes },
      keywords: onFirst,
    },
    {
      name: 'eject and delete its config ISO (it holds the Administrator password)',
      module: 'libvirt_remove_config_iso',
      args: {
        uri: common['uri'],
        pool: common['pool'],
        domain: '{{ golden_first.domain }}',
        volume: '{{ golden_first.config_volume }}',
        target: '{{ golden_first.config_target }}',
      },
      keywords: capturing,
    },
    {
      // Before sysprep may start: a resumed run then neither starts, watches nor generalizes it again.
      name: 'mark it on the hypervisor as being generalized (a resumed run only captures it)',
      module: 'libvirt_golden_mark',
      args: { uri: common['uri'], domain: '{{ golden_first.domain }}' },
      keywords: capturing,
    },
    {
      name: 'generalize it (sysprep /generalize /oobe /shutdown)',
      module: 'windows_generalize',
      args: {},
      keywords: onFirst,
    },
    {
      // The generalize script deleted the install's OpenSSH host keys; the overlay made at the
      // same address makes its own, which accept-new would refuse as a changed key. One
      // hypervisor at a time: they all edit the one file.
      name: "forget the installed guest's SSH host key in the cluster's known_hosts (its overlay makes its own)",
      module: 'lineinfile',
      args: { path: knownHosts, state: 'absent', regexp: '{{ golden_first.known_hosts_line }}' },
      throttle: 1,
      // Also on a resumed run (`generalizing`): it may have stopped before this step; removing is idempotent.
      keywords: { ...toCapture, delegateTo: 'localhost' },
    },
    {
      name: 'wait for its shut-off, capture its disk as the golden volume, remove the installed guest',
      module: 'libvirt_golden_capture',
      args: {
        ...common,
        domain: '{{ golden_first.domain }}',
        node: '{{ golden_first.node }}',
        disk: '{{ golden_first.disk_volume }}',
        golden: '{{ golden_volume }}',
        timeoutMinutes,
      },
      keywords: toCapture,
    },
    {
      name: 'create and start the Windows guests as overlays on the golden volume',
      module: 'libvirt_guests',
      args: guestsArgs(layout, common, true),
    },
  ];
}

/**
 * Guests on one or more KVM/QEMU hypervisors through libvirt (`virsh`, `qemu-img` and the ISO
 * tool run on each hypervisor over kubemix's own transport: local, or SSH with host keys checked).
 * Addresses are DHCP reservations made before boot, so `plan` shows them, with the hypervisor
 * each guest is placed on. With several hypervisors their networks are one L2 through a VXLAN
 * tunnel, the first one's being the gateway (NAT, DHCP, DNS).
 */
export class LibvirtProvider implements Provider {
  readonly type = 'libvirt' as const;

  plan(spec: ClusterSpec, requests: NodeRequest[], context: ProviderContext): ProviderPlan {
    const libvirt = asLibvirt(spec);
    const layout = libvirtLayout(libvirt, requests, context);
    const common = {
      uri: HYPERVISOR_URI,
      cluster: layout.cluster,
      dataDir: layout.dataDir,
      pool: layout.pool,
    };
    const active = layout.hypervisors.filter((h) => layout.placed.has(h.name));
    const gateway = [...layout.placed.values()][0]?.network;
    const waits = libvirtWaitSteps({
      uri: HYPERVISOR_URI,
      pool: layout.pool,
      windowsMinutes: libvirt.provider.windows.installTimeoutMinutes,
    });
    return {
      providerHosts: layout.hypervisors,
      nodes: layout.nodes,
      prepare: {
        description: 'Check and prepare each hypervisor: libvirt, KVM, resources, storage pool, base images',
        hosts: active,
        steps: prepareSteps(layout, common),
      },
      createNetwork: {
        description: `Create the libvirt network of each hypervisor (${layout.cidr}; DHCP reservations on ${gateway?.name ?? 'the gateway'})${layout.placed.size > 1 ? ', joined by a VXLAN tunnel' : ''}`,
        hosts: active,
        steps: networkSteps(layout, common),
      },
      createHosts: {
        description: 'Create the guests: disks, first-boot configuration, domains, started',
        hosts: active,
        steps: createSteps(layout, common),
      },
      ...(golden(layout)
        ? {
            goldenImage: {
              description: `Windows golden image: where a hypervisor has none yet, its first Windows guest is installed, generalized and captured (${goldenSummary(layout)}); then the Windows guests are made as overlays on it`,
              hosts: active.filter((h) => layout.placed.get(h.name)?.golden),
              steps: goldenSteps(
                layout,
                common,
                libvirt.provider.windows.installTimeoutMinutes,
                clusterKnownHostsPath(context.clusterDir),
              ),
            },
          }
        : {}),
      // Cloud images boot in ~30-60 s under emulation; a Windows install is waited for before this.
      waitTimeoutSec: 900,
      beforeConnectSteps: waits.beforeConnect,
      waitSteps: waits.afterConnect,
    };
  }

  inspect(spec: ClusterSpec): ProviderTask {
    const libvirt = asLibvirt(spec);
    const provider = libvirt.provider;
    return {
      description: 'What of the cluster exists on each hypervisor',
      hosts: hypervisorHosts(provider),
      steps: [
        {
          name: 'inspect',
          module: 'libvirt_inspect',
          args: {
            uri: HYPERVISOR_URI,
            cluster: spec.name,
            dataDir: provider.dataDir,
            pool: provider.storagePool,
            cidr: provider.network.cidr,
            hypervisors: namesByHypervisor(libvirt),
          },
        },
      ],
    };
  }

  teardown(spec: ClusterSpec, input: TeardownInput, context: ProviderContext): ProviderTeardown {
    const libvirt = asLibvirt(spec);
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
      cluster: spec.name,
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
            {
              name: 'destroy the guests recorded in the state',
              module: 'libvirt_destroy_guests',
              args: { ...common, consoleDir: `${context.clusterDir}/console`, purgeImages: purge, recorded },
            },
          ],
        },
        {
          name: 'destroy-network',
          description: 'Remove the tunnel, the network and what libvirt left of it on each hypervisor',
          hosts,
          steps: [
            {
              name: 'destroy the tunnel and the network',
              module: 'libvirt_destroy_network',
              args: { ...common, ...names, recorded },
            },
          ],
        },
        {
          name: 'check-leaks',
          description:
            'Nothing of the cluster is left on the hypervisors (domains, volumes, networks, bridges, tunnels, dnsmasq, files, firewall rules)',
          hosts,
          steps: [
            { name: 'look for anything left', module: 'libvirt_leak_check', args: { ...common, ...names } },
          ],
        },
      ],
    };
  }
}

/**
 * Which path each Windows guest takes, for `plan`: known only at create-hosts, which looks for
 * the golden volume in the hypervisor's pool.
 */
function goldenSummary(layout: LibvirtLayout): string {
  return [...layout.placed]
    .filter(([, entry]) => entry.golden)
    .map(([name, entry]) => {
      const golden = entry.golden!;
      const others = entry.guests
        .filter((g) => g.os === 'windows' && g.node !== golden.install.node)
        .map((g) => g.node);
      return `${name}: ${golden.install.node} installs from ISO, then generalized into ${golden.volume}, unless the volume exists (decided at create-hosts); ${others.length > 0 ? `${others.join(', ')} overlay` : 'no other Windows guest'} on ${golden.volume}`;
    })
    .join('; ');
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

function asLibvirt(spec: ClusterSpec): LibvirtClusterSpec {
  if (spec.provider.type !== 'libvirt') throw new TypeError('LibvirtProvider plans libvirt specs only');
  return spec as LibvirtClusterSpec;
}
