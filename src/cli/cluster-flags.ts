import type { ClusterContext } from '../cluster/context.js';
import { SHORT_FORM_FLAGS, type ShortFormOptions } from '../spec/index.js';
import { WINDOWS_VERSIONS } from '../types/windows.js';
import { choiceOption, intOption } from './options.js';
import { err } from './output.js';

/**
 * The short form's flags as the library's options (--windows-workers, --hypervisor, the image
 * flags...).
 *
 * @throws UsageError (exit 2) for a flag value of the wrong kind
 */
export function shortFormFromFlags(values: Record<string, unknown>): ShortFormOptions {
  const shortForm: ShortFormOptions = {};
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
  return shortForm;
}

/**
 * The cluster named on the command line (a spec file or a Kubeinit short form, with the short
 * form's flags and --cluster-dir), loaded by the library; its warnings go to stderr.
 */
export async function clusterFromFlags(
  argument: string,
  values: Record<string, unknown>,
): Promise<ClusterContext> {
  const shortForm = shortFormFromFlags(values);
  // Loaded here, not at import: `kubemix versions` without a spec never plans a cluster (#25: start-up).
  const { loadClusterContext } = await import('../cluster/context.js');
  return loadClusterContext({
    spec: argument,
    shortForm,
    ...(values['cluster-dir'] ? { clusterDir: String(values['cluster-dir']) } : {}),
    onWarning: (warning) => err(`kubemix: warning: ${warning}`),
  });
}
