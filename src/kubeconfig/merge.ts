/**
 * Merging a cluster's admin kubeconfig into a user's kubeconfig the way kind does
 * (sigs.k8s.io/kind pkg/cluster/internal/kubeconfig/internal/kubeconfig, read.go
 * KINDFromRawKubeadm and merge.go merge, at fed2688): the kubeadm file's one cluster, user and
 * context are all renamed to one key (`kind-<name>` there, {@link kubeconfigKey} here); entries
 * of that name in the user's file are replaced, others appended; the current context becomes
 * the cluster's; fields neither tool inspects are kept as they are. Pure: no files.
 */
import { KubemixError } from '../errors/index.js';

/** A kubeconfig as parsed YAML: the lists kubemix rewrites plus whatever else the file holds. */
export type Kubeconfig = Record<string, unknown> & {
  clusters?: NamedEntry[];
  users?: NamedEntry[];
  contexts?: NamedEntry[];
  'current-context'?: string;
};

/** A `clusters`, `users` or `contexts` entry. */
export type NamedEntry = Record<string, unknown> & { name: string };

const LISTS = ['clusters', 'users', 'contexts'] as const;

/** The name of a kubemix cluster's cluster, user and context entries (kind uses `kind-<name>`). */
export const kubeconfigKey = (clusterName: string) => `kubemix-${clusterName}`;

/**
 * The admin kubeconfig kubeadm wrote, with its cluster, user and context renamed to
 * {@link kubeconfigKey} and made current. Refuses a file without exactly one of each, as kind
 * does (checkKubeadmExpectations), naming `source` but never quoting the file (it holds keys).
 */
export function clusterKubeconfig(admin: unknown, clusterName: string, source: string): Kubeconfig {
  const config = asKubeconfig(admin, source);
  for (const list of LISTS) {
    const count = config[list]?.length ?? 0;
    if (count !== 1)
      throw new KubemixError(
        `${source}: a kubeadm kubeconfig has one entry in ${list}, this one has ${count}`,
      );
  }
  const key = kubeconfigKey(clusterName);
  const context = config.contexts![0]!;
  const contextBody = isRecord(context['context']) ? context['context'] : {};
  return {
    ...config,
    clusters: [{ ...config.clusters![0]!, name: key }],
    users: [{ ...config.users![0]!, name: key }],
    contexts: [{ ...context, name: key, context: { ...contextBody, cluster: key, user: key } }],
    'current-context': key,
  };
}

/**
 * `addition` (one cluster, user and context, from {@link clusterKubeconfig}) merged into
 * `existing`: same-named entries replaced in place, new ones appended, current-context set, the
 * rest of `existing` untouched. A new file takes apiVersion, kind and preferences from `addition`.
 */
export function mergeKubeconfig(existing: Kubeconfig, addition: Kubeconfig): Kubeconfig {
  const merged: Kubeconfig = Object.keys(existing).length === 0 ? { ...addition } : { ...existing };
  for (const list of LISTS) {
    const entries = [...(existing[list] ?? [])];
    for (const entry of addition[list] ?? []) {
      const at = entries.findIndex((e) => e.name === entry.name);
      if (at >= 0) entries[at] = entry;
      else entries.push(entry);
    }
    merged[list] = entries;
  }
  if (addition['current-context'] !== undefined) merged['current-context'] = addition['current-context'];
  return merged;
}

/**
 * `config` without the cluster's entries (cluster, user and context named {@link kubeconfigKey}),
 * as `kind delete cluster` removes its own (sigs.k8s.io/kind v0.32.0, cda67ef,
 * pkg/cluster/internal/kubeconfig/internal/kubeconfig/remove.go lines 61-111): entries of that
 * name dropped from the three lists, current-context emptied when it named the cluster, nothing
 * else touched. Undefined when nothing was there to remove (the file need not be written).
 */
export function removeClusterEntries(config: Kubeconfig, clusterName: string): Kubeconfig | undefined {
  const key = kubeconfigKey(clusterName);
  let changed = false;
  const result: Kubeconfig = { ...config };
  for (const list of LISTS) {
    const entries = config[list];
    if (!entries) continue;
    const kept = entries.filter((e) => e.name !== key);
    if (kept.length !== entries.length) changed = true;
    result[list] = kept;
  }
  if (config['current-context'] === key) {
    result['current-context'] = '';
    changed = true;
  }
  return changed ? result : undefined;
}

/**
 * Checks the shape kubemix relies on: a mapping whose clusters, users and contexts are lists of
 * entries with a name. Empty input is an empty kubeconfig.
 */
export function asKubeconfig(value: unknown, source: string): Kubeconfig {
  if (value === null || value === undefined) return {};
  if (!isRecord(value)) throw new KubemixError(`${source}: a kubeconfig must be a mapping`, { exitCode: 2 });
  for (const list of LISTS) {
    const entries = value[list];
    if (entries === undefined || entries === null) continue;
    if (!Array.isArray(entries) || !entries.every((e) => isRecord(e) && typeof e['name'] === 'string'))
      throw new KubemixError(`${source}: ${list} must be a list of entries with a name`, { exitCode: 2 });
  }
  return value as Kubeconfig;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
