import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { buildPlan, buildTeardownPlan } from '../plan/index.js';
import { loadClusterPlaybooks, playbooksDir } from '../playbook/cluster-playbooks.js';
import { loadSpec } from '../spec/index.js';
import type { ClusterSpec } from '../spec/schema.js';
import type { Plan } from '../types/plan.js';
import { loadVersions, type Versions } from '../versions/versions.js';
import { choiceOption, intOption } from './options.js';

/** What every cluster command works from: the spec, pinned versions, the plans and the cluster directory. */
export interface ClusterContext {
  spec: ClusterSpec;
  source: string;
  versions: Versions;
  clusterDir: string;
  upPlan(): Plan;
  downPlan(): Plan;
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
    ['2019', '2022'] as const,
  );
  if (windowsVersion !== undefined) shortForm.windowsVersion = windowsVersion;
  if (values['hypervisor'] !== undefined) shortForm.hypervisors = values['hypervisor'] as string[];
  if (values['kubernetes-version'] !== undefined)
    shortForm.kubernetesVersion = values['kubernetes-version'] as string;
  if (values['name'] !== undefined) shortForm.name = values['name'] as string;
  const { spec, source } = await loadSpec(argument, shortForm);
  const versions = loadVersions(spec.versions ?? {}, source);
  const clusterDir = values['cluster-dir']
    ? resolve(String(values['cluster-dir']))
    : defaultClusterDir(spec.name);
  const playbooks = await loadClusterPlaybooks();
  const planOptions = { spec, versions, clusterDir, playbooks, playbookDir: playbooksDir() };
  return {
    spec,
    source,
    versions,
    clusterDir,
    upPlan: () => buildPlan(planOptions),
    downPlan: () => buildTeardownPlan(planOptions),
  };
}
