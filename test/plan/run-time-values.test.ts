import { describe, expect, it } from 'vitest';
import { buildPlan, runTimeValues } from '../../src/plan/index.js';
import { loadClusterPlaybooks, playbooksDir } from '../../src/playbook/cluster-playbooks.js';
import { parseShortForm } from '../../src/spec/short-form.js';
import type { Plan, PlanTask } from '../../src/types/plan.js';
import { loadVersions } from '../../src/versions/versions.js';

const task = (name: string, needs: string[], steps: PlanTask['steps'], hosts = ['h1']): PlanTask => ({
  name,
  description: name,
  needs,
  hosts,
  steps,
  implemented: true,
});

describe('runTimeValues', () => {
  it('names outputs a later task reads, not the ones a task reads back itself or binds in its template', () => {
    const plan: Plan = {
      cluster: 'c',
      vars: { endpoint: '{{ kubemix_node_addresses[first_controller] }}:6443', pod_cidr: '10.244.0.0/16' },
      hosts: [
        {
          name: 'h1',
          address: '',
          os: 'linux',
          connection: 'ssh',
          role: 'worker',
          group: 'w',
          createdBy: 'ec2',
        },
        { name: 'h2', address: '10.0.0.2', os: 'linux', connection: 'ssh', role: 'worker', group: 'w' },
      ],
      tasks: [
        task('create-hosts', [], [], ['localhost']),
        task(
          'init',
          ['create-hosts'],
          [
            {
              name: 'token',
              module: 'command',
              args: { cmd: 'kubeadm token create' },
              register: 'join_command',
              secret: true,
            },
            { name: 'own', module: 'command', args: { cmd: 'x' }, register: 'own_value' },
            { name: 'reads own', module: 'command', args: { cmd: '{{ own_value }} {{ endpoint }}' } },
          ],
        ),
        task(
          'join',
          ['init'],
          [
            {
              name: 'join',
              module: 'shell',
              args: { cmd: '{% set own_value = 1 %}{{ outputs.join_command }}' },
            },
          ],
          ['h2'],
        ),
        task(
          'check',
          ['join'],
          [
            {
              name: 'when',
              module: 'command',
              args: { cmd: 'true' },
              keywords: { when: 'own_value is defined' },
            },
          ],
          ['h2'],
        ),
      ],
    };
    expect(runTimeValues(plan)).toEqual([
      { name: 'address of h1', from: ['create-hosts'], readBy: ['init'], secret: false },
      { name: 'endpoint', from: ['recorded addresses'], readBy: ['init'], secret: false },
      { name: 'join_command', from: ['init'], readBy: ['join'], secret: true },
      { name: 'own_value', from: ['init'], readBy: ['check'], secret: false },
    ]);
  });

  it("in a real plan: the workers' join command comes from init-control-plane, a secret", async () => {
    const spec = parseShortForm('k8s-libvirt-1-1-1', {});
    const plan = buildPlan({
      spec,
      versions: loadVersions(),
      playbooks: await loadClusterPlaybooks(),
      playbookDir: playbooksDir(),
    });
    const join = runTimeValues(plan).find((v) => v.name === 'join_command');
    expect(join).toEqual({
      name: 'join_command',
      from: ['init-control-plane'],
      readBy: ['join-linux-workers'],
      secret: true,
    });
  });
});
