import type { Plan, PlanStep } from '../types/plan.js';
import { topologicalOrder } from './graph.js';

function describeArgs(step: PlanStep): string {
  const entries = Object.entries(step.args);
  if (entries.length === 0) return step.module;
  const cmd = step.args['cmd'];
  if (typeof cmd === 'string' && entries.length === 1) return `${step.module}: ${cmd}`;
  return `${step.module} ${JSON.stringify(step.args)}`;
}

/**
 * The plan as people read it: hosts, then tasks in dependency order with their needs, hosts and
 * steps. Exactly what `up` will run: the same Plan object drives both.
 */
export function formatPlan(plan: Plan): string {
  const lines: string[] = [
    `Plan for cluster ${plan.cluster}: ${plan.tasks.length} tasks, ${plan.hosts.length} hosts`,
    '',
    'Hosts:',
  ];
  const width = Math.max(...plan.hosts.map((h) => h.name.length));
  for (const host of plan.hosts) {
    const port = host.port === undefined ? '' : `:${host.port}`;
    const reserved = host.vars?.['kubemix_address'] === 'reserved' ? ' (DHCP reservation)' : '';
    const address = host.address ? `${host.address}${port}${reserved}` : '(assigned at create-hosts)';
    const extra = host.windowsVersion ? ` Windows Server ${host.windowsVersion}` : '';
    // Where a provider placed a guest, and the host connections go through to reach it.
    const placed = typeof host.vars?.['hypervisor'] === 'string' ? `, on ${host.vars['hypervisor']}` : '';
    const via = host.jump ? ` via ${host.jump.name}` : '';
    // A Windows guest with the golden image: installed and generalized, or an overlay on it.
    const golden =
      typeof host.vars?.['libvirt_golden'] === 'string' ? `; ${host.vars['libvirt_golden']}` : '';
    lines.push(
      `  ${host.name.padEnd(width)}  ${host.role.padEnd(13)} ${host.os}${extra}, ${host.connection} ${address}${via}${placed}${golden}`,
    );
  }
  lines.push('', 'Tasks:');
  for (const task of topologicalOrder(plan.tasks)) {
    const needs = task.needs.length > 0 ? ` (after ${task.needs.join(', ')})` : '';
    lines.push(`  ${task.name}${needs}`);
    lines.push(`    ${task.description}`);
    lines.push(`    on: ${task.hosts.length > 0 ? task.hosts.join(', ') : '(no hosts)'}`);
    if (!task.implemented) lines.push('    steps: not implemented yet');
    for (const step of task.steps) {
      const flags = [step.runOnce ? 'once' : '', step.retries ? `retries ${step.retries}` : '']
        .filter(Boolean)
        .join(', ');
      lines.push(`    - ${step.name}: ${describeArgs(step)}${flags ? ` [${flags}]` : ''}`);
    }
  }
  return lines.join('\n');
}
