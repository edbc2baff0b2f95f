import type { ClusterSpec } from '../../spec/schema.js';
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
import { goldenSteps, goldenSummary } from './golden-steps.js';
import { HYPERVISOR_URI, hypervisorHosts, type LibvirtClusterSpec, libvirtLayout } from './layout.js';
import { libvirtInspectStep } from './modules/leak-check.js';
import { createSteps, networkSteps, prepareSteps, usesGoldenImage } from './setup-steps.js';
import { libvirtTeardown, namesByHypervisor } from './teardown-tasks.js';
import { libvirtWaitSteps } from './wait-steps.js';

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
      ...(usesGoldenImage(layout)
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
      // A Windows install is waited for before this (its own time, windows.installTimeoutMinutes).
      waitTimeoutSec: libvirt.provider.bootTimeoutMinutes * 60,
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
        libvirtInspectStep(
          {
            uri: HYPERVISOR_URI,
            cluster: spec.name,
            dataDir: provider.dataDir,
            pool: provider.storagePool,
            cidr: provider.network.cidr,
            hypervisors: namesByHypervisor(libvirt),
          },
          { name: 'inspect' },
        ),
      ],
    };
  }

  teardown(spec: ClusterSpec, input: TeardownInput, context: ProviderContext): ProviderTeardown {
    return libvirtTeardown(asLibvirt(spec), input, context);
  }
}

function asLibvirt(spec: ClusterSpec): LibvirtClusterSpec {
  if (spec.provider.type !== 'libvirt') throw new TypeError('LibvirtProvider plans libvirt specs only');
  return spec as LibvirtClusterSpec;
}
