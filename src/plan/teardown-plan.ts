import type { Plan } from '../types/plan.js';
import { type BuildPlanOptions, buildPlan, playbookSteps } from './build-plan.js';

/**
 * The plan `kubemix down` runs: `cleanup` (kubeadm reset on every node, cluster files removed),
 * then, for providers that created machines, destroying them. Static machines are left, clean.
 */
export function buildTeardownPlan(options: BuildPlanOptions): Plan {
  const up = buildPlan(options);
  const nodeHosts = up.hosts.filter((h) => h.role === 'control-plane' || h.role === 'worker');
  const nodes = nodeHosts.map((h) => h.name);
  const cleanupSteps = playbookSteps('cleanup', nodeHosts, options.playbooks ?? {});
  const providerHosts = up.tasks.find((t) => t.name === 'prepare-provider')?.hosts ?? ['localhost'];
  const tasks: Plan['tasks'] = [
    {
      name: 'cleanup',
      description: 'kubeadm reset on every node (Linux and Windows); remove cluster files',
      needs: [],
      hosts: nodes,
      steps: cleanupSteps ?? [],
      implemented: cleanupSteps !== undefined,
    },
  ];
  if (options.spec.provider.type !== 'static') {
    tasks.push(
      {
        name: 'destroy-hosts',
        description: 'Destroy the machines kubemix created',
        needs: ['cleanup'],
        hosts: providerHosts,
        steps: [],
        implemented: false,
      },
      {
        name: 'destroy-network',
        description: 'Remove the network kubemix created',
        needs: ['destroy-hosts'],
        hosts: providerHosts,
        steps: [],
        implemented: false,
      },
    );
  }
  return { ...up, tasks };
}
