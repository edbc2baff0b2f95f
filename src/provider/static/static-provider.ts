import { kubeletArgVars } from '../../spec/kubelet-args.js';
import type { ClusterSpec, WorkerGroup } from '../../spec/schema.js';
import type { ConnectionKind, InventoryHost } from '../../types/inventory.js';
import { LOCALHOST } from '../localhost.js';
import { defaultPort, groupConnection } from '../node-defaults.js';
import type { NodeRequest, Provider, ProviderContext, ProviderPlan, ProviderTeardown } from '../types.js';
import { credentialPreflightSteps } from './credential-steps.js';

type StaticSpec = ClusterSpec & { provider: { type: 'static' } };

/** The user's machines, matched to node groups. User-listed hosts are strict about host keys. */
function staticHosts(spec: StaticSpec): InventoryHost[] {
  const groups = new Map<string, WorkerGroup>(spec.nodes.workers.map((g) => [g.name, g]));
  return spec.provider.hosts.map((listed) => {
    const group = groups.get(listed.group);
    const isControlPlane = listed.group === 'control-plane';
    const os = group?.os ?? 'linux';
    const connection: ConnectionKind =
      listed.connection ??
      (isControlPlane ? spec.nodes.controlPlane.connection : group ? groupConnection(group) : 'ssh');
    const credentials =
      listed.credentials ?? (isControlPlane ? spec.nodes.controlPlane.credentials : group?.credentials);
    const host: InventoryHost = {
      name: listed.name,
      address: listed.address,
      os,
      connection,
      role: isControlPlane ? 'control-plane' : 'worker',
      group: listed.group,
      hostKeyPolicy: 'strict',
    };
    const port = listed.port ?? defaultPort(connection);
    if (port !== undefined) host.port = port;
    if (credentials) host.credentials = credentials;
    if (spec.provider.knownHosts && connection === 'ssh')
      // A list: the spec's one path may hold spaces (a string is OpenSSH's space-separated list).
      host.vars = { kubemix_known_hosts: [spec.provider.knownHosts] };
    const kubeletArgs = isControlPlane ? spec.nodes.controlPlane.kubeletExtraArgs : group?.kubeletExtraArgs;
    if (kubeletArgs && kubeletArgs.length > 0) host.vars = { ...host.vars, ...kubeletArgVars(kubeletArgs) };
    if (os === 'windows' && group?.hyperV) host.vars = { ...host.vars, hyperv: true };
    if (os === 'windows') host.windowsVersion = group?.windowsVersion ?? '2022';
    return host;
  });
}

/**
 * Existing machines the user lists: nothing to create and nothing to destroy (`down` resets them
 * with the cleanup task; they are not kubemix's to remove). prepare-provider checks, on the
 * machine running kubemix, that every credential reference resolves before any host is touched.
 */
export class StaticProvider implements Provider {
  readonly type = 'static' as const;

  plan(spec: ClusterSpec, _nodes: NodeRequest[], _context: ProviderContext): ProviderPlan {
    if (spec.provider.type !== 'static') throw new TypeError('StaticProvider plans static specs only');
    const nodes = staticHosts({ ...spec, provider: spec.provider });
    return {
      providerHosts: [],
      nodes,
      prepare: {
        description: 'Check the listed machines and every credential reference before touching a host',
        hosts: [LOCALHOST],
        steps: credentialPreflightSteps(nodes),
      },
      // Listed machines should answer now.
      waitTimeoutSec: 120,
      waitSteps: [],
    };
  }

  inspect(): undefined {
    return undefined;
  }

  teardown(): ProviderTeardown {
    return { tasks: [] };
  }
}
