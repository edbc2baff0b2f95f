import { resolve } from 'node:path';
import { loadArtifactsFile } from '../artifacts/list.js';
import type { ClusterState } from '../engine/index.js';
import { SpecError } from '../errors/index.js';
import { buildPlan, buildTeardownPlan } from '../plan/index.js';
import { loadClusterPlaybooks, playbooksDir } from '../playbook/cluster-playbooks.js';
import { ensureClusterKey, readClusterPublicKey } from '../provider/cluster-key.js';
import { EC2_KEY_FILE } from '../provider/ec2/ec2-provider.js';
import { withLocalImageDigests } from '../provider/libvirt/image-digest.js';
import { loadSpec, type ShortFormOptions, specWarnings } from '../spec/index.js';
import type { ClusterSpec } from '../spec/schema.js';
import type { Plan } from '../types/plan.js';
import { buildableVersion } from '../versions/buildable.js';
import { loadVersions, type Versions } from '../versions/versions.js';
import { defaultClusterDir } from './paths.js';
import { withRecordedHosts } from './recorded-hosts.js';

/** What every cluster command works from: the spec, pinned versions, the plans and the cluster directory. */
export interface ClusterContext {
  spec: ClusterSpec;
  /** The spec file's absolute path, or the short form (k8s-libvirt-1-1-1). */
  source: string;
  versions: Versions;
  clusterDir: string;
  /** The plan `up` runs; throws a SpecError (exit 2) when the cluster's Kubernetes version cannot be built. */
  upPlan(): Plan;
  /** The teardown plan for what the state recorded (hosts with what providers assigned them). */
  downPlan(state: ClusterState | undefined, options?: { purgeImages?: boolean }): Plan;
  /** Makes the cluster SSH key when the provider logs in to machines it creates (libvirt, EC2: RSA); idempotent. */
  ensureClusterKey(): Promise<void>;
}

/** What {@link loadClusterContext} reads a cluster from. */
export interface ClusterContextOptions {
  /** A spec file's path or a Kubeinit short form (k8s-libvirt-1-1-1). */
  spec: string;
  /** What a short form takes besides its name (Windows workers, images...); refused with a spec file. */
  shortForm?: ShortFormOptions;
  /** The cluster directory; default {@link defaultClusterDir} of the spec's name. */
  clusterDir?: string;
  /**
   * Told each warning about the spec and its versions (a version kubemix builds but does not
   * test, a setting that is probably a mistake), before any plan exists. Default: ignored.
   */
  onWarning?: (warning: string) => void;
}

/**
 * Loads a spec (a YAML file or a Kubeinit short form) and everything derived from it: the
 * pinned versions after the spec's overrides, the cluster directory, and the plans `up` and
 * `down` run.
 *
 * @throws SpecError (exit 2) naming the field of a spec that is bad input
 */
export async function loadClusterContext(options: ClusterContextOptions): Promise<ClusterContext> {
  const loaded = await loadSpec(options.spec, options.shortForm ?? {});
  const source = loaded.source;
  const spec = await withLocalImageDigests(loaded.spec, source);
  const versions = loadVersions(spec.versions ?? {}, source);
  // Every version question is decided here, before a plan exists (src/versions/buildable.ts);
  // the up plan refuses what kubemix cannot build; `down` still works for such a cluster.
  const buildable = buildableVersion({
    kubernetesVersion: spec.kubernetes.version ?? versions['kubernetes'] ?? '',
    path: spec.kubernetes.version !== undefined ? ['kubernetes', 'version'] : ['versions', 'kubernetes'],
    versions,
    kubeadmImagesByMinor: loadArtifactsFile()['kubeadm-images'],
    issue: loaded.issue,
  });
  for (const warning of [...buildable.warnings, ...specWarnings(spec)]) options.onWarning?.(warning);
  const clusterDir =
    options.clusterDir !== undefined ? resolve(options.clusterDir) : defaultClusterDir(spec.name);
  const playbooks = await loadClusterPlaybooks();
  const keyFile = spec.provider.type === 'ec2' ? EC2_KEY_FILE : undefined;
  let publicKey =
    spec.provider.type === 'static' ? undefined : await readClusterPublicKey(clusterDir, keyFile);
  const planOptions = () => ({
    spec,
    versions,
    clusterDir,
    playbooks,
    playbookDir: playbooksDir(),
    ...(publicKey === undefined ? {} : { publicKey }),
  });
  return {
    spec,
    source,
    versions,
    clusterDir,
    upPlan: () => {
      if (buildable.issues.length > 0) throw new SpecError(buildable.issues);
      return buildPlan({
        ...planOptions(),
        ...(buildable.kubeadmImages ? { kubeadmImages: buildable.kubeadmImages } : {}),
      });
    },
    downPlan: (state, downOptions = {}) =>
      withRecordedHosts(
        buildTeardownPlan({
          ...planOptions(),
          resources: state?.resources ?? [],
          purgeImages: downOptions.purgeImages ?? false,
        }),
        state,
      ),
    ensureClusterKey: async () => {
      if (spec.provider.type === 'libvirt') publicKey = await ensureClusterKey(clusterDir, spec.name);
      if (spec.provider.type === 'ec2')
        publicKey = await ensureClusterKey(clusterDir, spec.name, EC2_KEY_FILE, 'rsa');
    },
  };
}
