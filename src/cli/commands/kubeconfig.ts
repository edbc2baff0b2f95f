import { existsSync } from 'node:fs';
import { adminConfPath } from '../../cluster/index.js';
import { readState } from '../../engine/index.js';
import { EXIT, KubemixError, UsageError } from '../../errors/index.js';
import { kubeconfigKey, mergeIntoKubeconfig, recordMerge } from '../../kubeconfig/index.js';
import { clusterFromFlags } from '../cluster-flags.js';
import { onePositional, parseCommandArgs, SHORT_FORM_HELP, SHORT_FORM_OPTIONS } from '../options.js';
import { out } from '../output.js';

export const kubeconfigHelp = `Usage: kubemix kubeconfig <spec> [options]

Print the path of the cluster's admin kubeconfig (<cluster dir>/admin.conf, written by
\`kubemix up\`, mode 0600), for \`export KUBECONFIG=...\`; or merge it into your kubeconfig.

Options:
  --cluster-dir DIR          the cluster directory (default: derived from the spec's name)
  --merge                    add the cluster to your kubeconfig as it is done for kind: cluster,
                             user and context named kubemix-<name> (entries of that name are
                             replaced, others kept), made the current context. The file is the
                             one kubectl would write: $KUBECONFIG's file (the first that exists
                             when it lists several, else the last), or ~/.kube/config. It is
                             left 0600; its contents are never printed. kubemix down
                             removes these entries again.

Exit codes: 0 printed or merged; 1 the cluster was torn down; 2 bad input, or a cluster never built.
${SHORT_FORM_HELP}`;

export async function kubeconfigCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs('kubeconfig', argv, {
    ...SHORT_FORM_OPTIONS,
    'cluster-dir': { type: 'string' },
    merge: { type: 'boolean' },
  });
  if (values.help) {
    out(kubeconfigHelp);
    return EXIT.ok;
  }
  const context = await clusterFromFlags(onePositional('kubeconfig', positionals, 'spec'), values);
  const admin = adminConfPath(context.clusterDir);
  const tornDown = (await readState(context.clusterDir))?.tornDown;
  // The cluster existed and is gone: not bad input, a request that cannot be met (exit 1), as
  // `kind get kubeconfig` answers for a deleted cluster.
  if (tornDown && !existsSync(admin))
    throw new KubemixError(
      `kubemix kubeconfig: cluster ${context.spec.name} was torn down at ${tornDown.at} (kubemix down); build it again with kubemix up`,
    );
  if (!existsSync(admin))
    throw new UsageError(
      `kubemix kubeconfig: cluster ${context.spec.name} has no kubeconfig yet (no ${admin}); build it with kubemix up first`,
    );
  if (!values.merge) {
    out(admin);
    return EXIT.ok;
  }
  const merged = await mergeIntoKubeconfig({ adminConfPath: admin, clusterName: context.spec.name });
  // Remembered so `kubemix down` removes the entries from this file.
  await recordMerge(context.clusterDir, merged.path);
  out(
    `merged cluster ${context.spec.name} into ${merged.path}; current context: ${kubeconfigKey(context.spec.name)}`,
  );
  return EXIT.ok;
}
