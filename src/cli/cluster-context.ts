import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { loadArtifactsFile } from '../artifacts/list.js';
import { assignHost, type ClusterState } from '../engine/index.js';
import { SpecError } from '../errors/index.js';
import { buildPlan, buildTeardownPlan } from '../plan/index.js';
import { loadClusterPlaybooks, playbooksDir } from '../playbook/cluster-playbooks.js';
import { ensureClusterKey, readClusterPublicKey } from '../provider/cluster-key.js';
import { EC2_KEY_FILE } from '../provider/ec2/ec2-provider.js';
import { withLocalImageDigests } from '../provider/libvirt/image-digest.js';
import { loadSpec, SHORT_FORM_FLAGS, specWarnings } from '../spec/index.js';
import type { ClusterSpec } from '../spec/schema.js';
import type { Plan } from '../types/plan.js';
import { WINDOWS_VERSIONS } from '../types/windows.js';
import { buildableVersion } from '../versions/buildable.js';
import { loadVersions, type Versions } from '../versions/versions.js';
import { choiceOption, intOption } from './options.js';
import { err } from './output.js';

/** What every cluster command works from: the spec, pinned versions, the plans and the cluster directory. */
export interface ClusterContext {
  spec: ClusterSpec;
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

/** A plan's hosts as the state knows them: with what providers assigned (addresses, credentials...). */
export function withRecordedHosts(plan: Plan, state: ClusterState | undefined): Plan {
  if (!state) return plan;
  return { ...plan, hosts: plan.hosts.map((h) => assignHost(h, state.assignments[h.name])) };
}

/** Where a cluster's state lives unless --cluster-dir says otherwise: $KUBEMIX_HOME or ~/.kubemix, then clusters/<name>. */
export function defaultClusterDir(name: string): string {
  const home = process.env['KUBEMIX_HOME'] ?? resolve(homedir(), '.kubemix');
  return resolve(home, 'clusters', name);
}

/** The admin kubeconfig `up` fetches into a cluster directory (init-control-plane's fetch step). */
export const adminConfPath = (clusterDir: string) => join(clusterDir, 'admin.conf');

/** Where `kubemix down` keeps its own run state, beside the build's. */
export const teardownDir = (clusterDir: string) => join(clusterDir, 'teardown');

/** Loads the spec named on the command line (a YAML file or a Kubeinit short form) and everything derived from it. */
export async function loadClusterContext(
  argument: string,
  values: Record<string, unknown>,
): Promise<ClusterContext> {
  const shortForm: Parameters<typeof loadSpec>[1] = {};
  const windowsWorkers = intOption('windows-workers', values['windows-workers'] as string | undefined);
  if (windowsWorkers !== undefined) shortForm.windowsWorkers = windowsWorkers;
  const windowsVersion = choiceOption(
    'windows-version',
    values['windows-version'] as string | undefined,
    WINDOWS_VERSIONS,
  );
  if (windowsVersion !== undefined) shortForm.windowsVersion = windowsVersion;
  if (values['hypervisor'] !== undefined) shortForm.hypervisors = values['hypervisor'] as string[];
  if (values['kubernetes-version'] !== undefined)
    shortForm.kubernetesVersion = values['kubernetes-version'] as string;
  if (values['name'] !== undefined) shortForm.name = values['name'] as string;
  const strings = [
    'linuxImage',
    'linuxImageSha256',
    'windowsIso',
    'windowsIsoSha256',
    'virtioIso',
    'virtioIsoSha256',
    'network',
  ] as const;
  for (const key of strings) {
    const value = values[SHORT_FORM_FLAGS[key].slice(2)];
    if (value !== undefined) shortForm[key] = value as string;
  }
  const loaded = await loadSpec(argument, shortForm);
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
  for (const warning of [...buildable.warnings, ...specWarnings(spec)]) err(`kubemix: warning: ${warning}`);
  const clusterDir = values['cluster-dir']
    ? resolve(String(values['cluster-dir']))
    : defaultClusterDir(spec.name);
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
    downPlan: (state, options = {}) =>
      withRecordedHosts(
        buildTeardownPlan({
          ...planOptions(),
          resources: state?.resources ?? [],
          purgeImages: options.purgeImages ?? false,
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
