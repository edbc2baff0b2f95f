import { describe, expect, it } from 'vitest';
import { formatPlanLists } from '../../src/cli/plan-lists.js';
import type { Plan } from '../../src/types/plan.js';

const plan: Plan = {
  cluster: 'lab',
  vars: {},
  hosts: [],
  tasks: [
    {
      name: 'join-linux-workers',
      description: 'kubeadm join',
      needs: ['prepare-linux', 'install-flannel'],
      hosts: ['lw1', 'lw2'],
      implemented: true,
      steps: [
        {
          name: 'Join the cluster',
          module: 'shell',
          args: { cmd: '{{ outputs.join_command }}' },
          retries: 2,
        },
        { name: 'Wait for the node', module: 'command', args: {}, runOnce: true, os: 'linux' },
      ],
    },
    {
      name: 'prepare-linux',
      description: 'p',
      needs: [],
      hosts: ['lw1', 'lw2'],
      implemented: false,
      steps: [],
    },
    {
      name: 'install-flannel',
      description: 'f',
      needs: ['prepare-linux'],
      hosts: ['cp1'],
      implemented: true,
      steps: [],
    },
  ],
};

describe('formatPlanLists (ansible-playbook --list-tasks / --list-hosts shape)', () => {
  it('--list-tasks: a plan line, then each task in run order with its hosts, what it waits for, and its steps', () => {
    expect(
      formatPlanLists(plan, { command: 'up', tasks: true, hosts: false, width: 100 }).split('\n'),
    ).toEqual([
      '',
      'plan: lab (kubemix up)',
      '',
      '  task #1 (lw1,lw2): prepare-linux  AFTER: []',
      '    steps:',
      '      (not implemented yet)',
      '',
      '  task #2 (cp1): install-flannel  AFTER: [prepare-linux]',
      '    steps:',
      '',
      '  task #3 (lw1,lw2): join-linux-workers  AFTER: [prepare-linux, install-flannel]',
      '    steps:',
      '      Join the cluster  [retries 2]',
      '      Wait for the node  [once, linux]',
    ]);
  });

  it('--list-hosts: each task with its hosts, one a line; with --list-tasks too, hosts then steps', () => {
    const both = formatPlanLists(plan, { command: 'down', tasks: true, hosts: true, width: 100 }).split('\n');
    expect(both.slice(0, 7)).toEqual([
      '',
      'plan: lab (kubemix down)',
      '',
      '  task #1 (lw1,lw2): prepare-linux  AFTER: []',
      '    hosts (2):',
      '      lw1',
      '      lw2',
    ]);
    expect(both[7]).toBe('    steps:');
    const hosts = formatPlanLists(plan, { command: 'up', tasks: false, hosts: true, width: 100 });
    expect(hosts).not.toContain('steps:');
  });

  it('cuts the host list, never the task name, to fit the width', () => {
    const lines = formatPlanLists(plan, { command: 'up', tasks: false, hosts: false, width: 40 }).split('\n');
    // Too long even with one host character: the line itself is cut at the width, the name kept.
    expect(lines).toContain('  task #3 (…): join-linux-workers  AFTE…');
    for (const line of lines) expect(line.length).toBeLessThanOrEqual(40);
    expect(lines).toContain('  task #1 (l…): prepare-linux  AFTER: []');
  });
});
