import { topologicalOrder } from '../plan/index.js';
import type { Plan, PlanStep } from '../types/plan.js';
import { truncate } from './render/fit-table.js';

/** Options of {@link formatPlanLists}: which lists, and the width every line is cut to. */
export interface PlanListOptions {
  /** `kubemix up` or `kubemix down`: the command the plan is for. */
  command: 'up' | 'down';
  tasks: boolean;
  hosts: boolean;
  width: number;
}

/** What sets a step apart when it runs: once, on one OS, with retries. */
function stepMarks(step: PlanStep): string {
  const marks = [
    step.runOnce ? 'once' : '',
    step.os ?? '',
    step.retries ? `retries ${step.retries}` : '',
    step.register && step.secret ? 'secret output' : '',
  ].filter(Boolean);
  return marks.length > 0 ? `  [${marks.join(', ')}]` : '';
}

/**
 * `--list-tasks` / `--list-hosts` in the shape of ansible-playbook's (ansible-core v2.17.5,
 * f0fff1a5, lib/ansible/cli/playbook.py lines 160-223): a `playbook:` line, then per play
 * `  play #N (hosts): name\tTAGS: [...]`, with `--list-hosts` `    hosts (N):` and a name per line,
 * with `--list-tasks` `    tasks:` and a task name per line. A kubemix task is the play here (hosts
 * plus an ordered list of steps), so the lines read `plan:`, `  task #N (hosts): name  AFTER: [...]`
 * (what it waits for, where Ansible has tags), `    hosts (N):` and `    steps:`. Pure.
 */
export function formatPlanLists(plan: Plan, options: PlanListOptions): string {
  const lines = ['', `plan: ${plan.cluster} (kubemix ${options.command})`];
  topologicalOrder(plan.tasks).forEach((task, index) => {
    // The hosts give way to the width first: `--list-hosts` lists them in full, the task name must stay.
    const head = `  task #${index + 1} (`;
    const tail = `): ${task.name}  AFTER: [${task.needs.join(', ')}]`;
    const hosts = truncate(task.hosts.join(','), Math.max(1, options.width - head.length - tail.length));
    lines.push('', `${head}${hosts}${tail}`);
    if (options.hosts) {
      lines.push(`    hosts (${task.hosts.length}):`);
      for (const host of task.hosts) lines.push(`      ${host}`);
    }
    if (options.tasks) {
      lines.push('    steps:');
      if (!task.implemented) lines.push('      (not implemented yet)');
      for (const step of task.steps) lines.push(`      ${step.name}${stepMarks(step)}`);
    }
  });
  return lines.map((line) => truncate(line, options.width)).join('\n');
}
