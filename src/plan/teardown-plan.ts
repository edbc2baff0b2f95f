import { providerFor } from '../provider/index.js';
import type { Plan } from '../types/plan.js';
import type { ProviderResource } from '../types/provision.js';
import { type BuildPlanOptions, buildPlan, playbookSteps } from './build-plan.js';

/** What teardown needs besides the build plan's inputs: the state's provider records. */
export interface TeardownPlanOptions extends BuildPlanOptions {
  /** Resources recorded in the build's state (every status). */
  resources?: readonly ProviderResource[];
  /** Also remove the cached base images and ISOs (`down --purge-images`). */
  purgeImages?: boolean;
}

/**
 * The plan `kubemix down` runs. Static machines: `cleanup` (kubeadm reset on every node, cluster
 * files removed); they stay, clean. Machines kubemix created: the provider destroys what the state
 * recorded (hosts, then network) and checks nothing of the cluster is left; resetting a node that
 * is about to be destroyed would only fail where it never came up.
 */
export function buildTeardownPlan(options: TeardownPlanOptions): Plan {
  const up = buildPlan(options);
  const provider = providerFor(options.spec);
  if (provider.type === 'static') {
    const nodeHosts = up.hosts.filter((h) => h.role === 'control-plane' || h.role === 'worker');
    const cleanupSteps = playbookSteps('cleanup', nodeHosts, options.playbooks ?? {});
    return {
      ...up,
      tasks: [
        {
          name: 'cleanup',
          description: 'kubeadm reset on every node (Linux and Windows); remove cluster files',
          needs: [],
          hosts: nodeHosts.map((h) => h.name),
          steps: cleanupSteps ?? [],
          implemented: cleanupSteps !== undefined,
        },
      ],
    };
  }
  const teardown = provider.teardown(
    options.spec,
    { resources: options.resources ?? [], purgeImages: options.purgeImages ?? false },
    { versions: options.versions, clusterDir: options.clusterDir ?? '' },
  );
  const tasks: Plan['tasks'] = teardown.tasks.map((task, index) => ({
    name: task.name,
    description: task.description,
    needs: index === 0 ? [] : [teardown.tasks[index - 1]!.name],
    hosts: task.hosts.map((h) => h.name),
    steps: task.steps ?? [],
    implemented: task.steps !== undefined,
  }));
  const known = new Set(up.hosts.map((h) => h.name));
  const extra = teardown.tasks.flatMap((t) => t.hosts).filter((h) => !known.has(h.name));
  return { ...up, hosts: [...up.hosts, ...new Map(extra.map((h) => [h.name, h])).values()], tasks };
}
