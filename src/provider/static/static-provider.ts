import { kubeletArgVars } from '../../spec/kubelet-args.js';
import type { ClusterSpec, WorkerGroup } from '../../spec/schema.js';
import { type ConnectionKind, credentialFieldsAt, type InventoryHost } from '../../types/inventory.js';
import { LOCALHOST } from '../../types/localhost.js';
import { defaultPort, groupConnection } from '../node-defaults.js';
import type { NodeRequest, Provider, ProviderContext, ProviderPlan, ProviderTeardown } from '../types.js';

type StaticSpec = ClusterSpec & { provider: { type: 'static' } };

/** The user's machines, matched to node groups. User-listed hosts are strict about host keys. */
function staticHosts(spec: StaticSpec): InventoryHost[] {
  const groups = new Map<string, WorkerGroup>(spec.nodes.workers.map((g) => [g.name, g]));
  return spec.provider.hosts.map((listed, index) => {
    const group = groups.get(listed.group);
    const isControlPlane = listed.group === 'control-plane';
    const os = group?.os ?? 'linux';
    const connection: ConnectionKind =
      listed.connection ??
      (isControlPlane ? spec.nodes.controlPlane.connection : group ? groupConnection(group) : 'ssh');
    const credentials =
      listed.credentials ?? (isControlPlane ? spec.nodes.controlPlane.credentials : group?.credentials);
    // Where those credentials were written, so a reference that does not resolve names its field.
    const credentialsPath = listed.credentials
      ? `provider.hosts.${index}.credentials`
      : isControlPlane
        ? 'nodes.controlPlane.credentials'
        : `nodes.workers.${spec.nodes.workers.findIndex((g) => g.name === listed.group)}.credentials`;
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
    const credentialFields = credentialFieldsAt(credentials, credentialsPath);
    if (credentialFields) host.credentialFields = credentialFields;
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
 * with the cleanup task; they are not kubemix's to remove). Every credential reference is checked
 * when the plan is made, before anything is touched (src/plan/credential-check.ts).
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
        // Their credentials were checked when the plan was made (src/plan/credential-check.ts).
        description: 'Nothing to prepare: the machines are listed in the spec',
        hosts: [LOCALHOST],
        steps: [],
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
