import type { HostCredentials } from './inventory.js';

/**
 * What kubemix knows about a provider resource. `intended` is written to the state BEFORE the
 * create call, so a run killed between the call and its answer still finds (and `down` still
 * removes) what the call made; `created` after the call; `deleted` once it is gone.
 */
export type ResourceStatus = 'intended' | 'created' | 'deleted';

/** One thing a provider made for the cluster: a domain, volume, network, file, instance... */
export interface ProviderResource {
  provider: 'libvirt' | 'ec2';
  /** libvirt: `domain`, `volume`, `network`, `directory`; EC2: `instance`, `vpc`, ... */
  kind: string;
  /** The name (libvirt) or id (EC2) the provider knows it by; always carries the cluster name where names are free. */
  name: string;
  /** Where it lives: the hypervisor's inventory name, or the EC2 region. */
  location: string;
  status: ResourceStatus;
  /** Provider facts needed to remove or check it (pool, path, bridge...). Never secrets. */
  details?: Record<string, string>;
  /** When the engine last recorded it. */
  updatedAt?: string;
}

/**
 * What a provider learned about a host while creating it (EC2: its address; libvirt: its domain
 * and MAC). Applied over the planned host by name; later tasks, `down`, `status` and `verify` see it.
 */
export interface HostAssignment {
  name: string;
  address?: string;
  /** The address the cluster uses for the node (see InventoryHost.nodeAddress). */
  nodeAddress?: string;
  port?: number;
  credentials?: HostCredentials;
  hostKeyPolicy?: 'strict' | 'accept-new';
  /** Merged into the host's vars. */
  vars?: Record<string, unknown>;
}

/** One write to the state's provider records: resources by key, host assignments by name. */
export interface ProvisionUpdate {
  resources?: ProviderResource[];
  hosts?: HostAssignment[];
}

/**
 * The state's provider records as a running module sees them. `record` returns once the update
 * is on disk (state.json, written atomically): a module records its intent, then creates.
 */
export interface ProvisionLedger {
  /** The resources recorded so far (every status), as of now. */
  readonly resources: readonly ProviderResource[];
  record(update: ProvisionUpdate): Promise<void>;
}

/** Identity of a resource in the state: provider, location, kind and name. */
export function resourceKey(
  resource: Pick<ProviderResource, 'provider' | 'location' | 'kind' | 'name'>,
): string {
  return `${resource.provider}/${resource.location}/${resource.kind}/${resource.name}`;
}
