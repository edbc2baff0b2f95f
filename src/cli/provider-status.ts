import { liveResources } from '../engine/provision.js';
import { findModule } from '../modules/registry.js';
import { clusterKnownHostsPath } from '../provider/cluster-key.js';
import { providerFor } from '../provider/index.js';
import type { ClusterSpec } from '../spec/schema.js';
import { renderValue } from '../template/index.js';
import type { ProviderResource, ProvisionLedger } from '../types/provision.js';
import type { Versions } from '../versions/versions.js';

/** A recorded resource and whether it exists now; or something of the cluster found but never recorded. */
export interface ResourceStatusLine {
  kind: string;
  name: string;
  location: string;
  /** The provider's id for it (EC2: vpc-..., i-...), as recorded or as found. */
  id?: string;
  recorded?: ProviderResource['status'];
  exists: boolean | 'unknown';
  /** Why `exists` is unknown (the hypervisor could not be asked). */
  note?: string;
}

/**
 * Asks each provider host what of the cluster exists (the provider's read-only inspect step) and
 * lines it up with what the state recorded. Nothing is changed.
 */
export async function providerStatus(
  spec: ClusterSpec,
  resources: readonly ProviderResource[],
  context: { versions: Versions; clusterDir: string },
): Promise<ResourceStatusLine[]> {
  const task = providerFor(spec).inspect(spec, context);
  const recorded = liveResources(resources);
  if (!task?.steps || (recorded.length === 0 && resources.length === 0)) return [];
  // The transports and the executor load only when there is something to ask about: `status` of a
  // cluster never built stays a quick read of the state (#25: start-up).
  const [{ createTransportFactory }, { runModule }] = await Promise.all([
    import('../executor/create-transport.js'),
    import('../executor/run-module.js'),
  ]);
  const factory = createTransportFactory({ clusterKnownHosts: clusterKnownHostsPath(context.clusterDir) });
  const lines: ResourceStatusLine[] = [];
  for (const host of task.hosts) {
    let found: Array<{ kind: string; name: string; id?: string }> | undefined;
    let note: string | undefined;
    // Where the inspected resources live: the host (a hypervisor), or what the step says (an EC2 region).
    let location = host.name;
    const transport = factory(host);
    try {
      await transport.connect();
      for (const step of task.steps) {
        const module = findModule(step.module);
        if (!module) throw new Error(`unknown module ${step.module}`);
        // Provider steps read the host's variables (a hypervisor's libvirt URI) through templates.
        const vars = { ...host.vars };
        const outcome = await runModule({
          module,
          args: renderValue(step.args, vars),
          // Read only: the step sees what the state recorded (EC2: the region the cluster lives in).
          context: { host, os: host.os, vars, checkMode: false, ledger: readOnlyLedger(resources) },
          transport,
        });
        if (outcome.failed) note = outcome.msg ?? 'the inspection failed';
        else found = (outcome.data?.['found'] as typeof found) ?? [];
        if (typeof outcome.data?.['location'] === 'string') location = outcome.data['location'];
      }
    } catch (error) {
      note = (error as Error).message;
    } finally {
      await transport.close().catch(() => undefined);
    }
    const mine = recorded.filter((r) => r.location === location);
    // Discovery sees domains, volumes and networks by name; files by path (directories are files there).
    const key = (kind: string, name: string) => `${kind === 'directory' ? 'file' : kind} ${name}`;
    const seen = new Map((found ?? []).map((f) => [key(f.kind, f.name), f]));
    for (const r of mine) {
      const id = r.details?.['id'] ?? seen.get(key(r.kind, r.name))?.id;
      lines.push({
        kind: r.kind,
        name: r.name,
        location: r.location,
        ...(id ? { id } : {}),
        recorded: r.status,
        exists: found ? seen.has(key(r.kind, r.name)) : 'unknown',
        ...(note ? { note } : {}),
      });
    }
    const known = new Set(mine.map((r) => key(r.kind, r.name)));
    for (const f of found ?? []) {
      if (!known.has(key(f.kind, f.name)))
        lines.push({ kind: f.kind, name: f.name, location, ...(f.id ? { id: f.id } : {}), exists: true });
    }
  }
  return lines;
}

/** The recorded resources for a step that must change nothing. */
const readOnlyLedger = (resources: readonly ProviderResource[]): ProvisionLedger => ({
  resources,
  record: () => Promise.reject(new Error('status changes nothing: a provider step tried to record')),
});
