import { existsSync } from 'node:fs';
import { EXIT, UsageError } from '../../errors/index.js';
import { kubeconfigKey } from '../../kubeconfig/merge.js';
import { mergeIntoKubeconfig } from '../../kubeconfig/merge-file.js';
import { adminConfPath, loadClusterContext } from '../cluster-context.js';
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
                             left 0600; its contents are never printed.
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
  const context = await loadClusterContext(onePositional('kubeconfig', positionals, 'spec'), values);
  const admin = adminConfPath(context.clusterDir);
  if (!existsSync(admin))
    throw new UsageError(
      `kubemix kubeconfig: cluster ${context.spec.name} has no kubeconfig yet (no ${admin}); build it with kubemix up first`,
    );
  if (!values.merge) {
    out(admin);
    return EXIT.ok;
  }
  const merged = await mergeIntoKubeconfig({ adminConfPath: admin, clusterName: context.spec.name });
  out(
    `merged cluster ${context.spec.name} into ${merged.path}; current context: ${kubeconfigKey(context.spec.name)}`,
  );
  return EXIT.ok;
}
