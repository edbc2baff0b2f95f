import { describe, expect, it } from 'vitest';
import { buildPlan } from '../../src/plan/index.js';
import { loadClusterPlaybooks } from '../../src/playbook/index.js';
import { clusterSpecSchema } from '../../src/spec/schema.js';
import { loadVersions } from '../../src/versions/versions.js';

describe('the shipped cluster playbooks', () => {
  it('all parse, with known modules and keywords', async () => {
    const playbooks = await loadClusterPlaybooks();
    expect(Object.keys(playbooks).sort()).toEqual([
      'cleanup-linux',
      'cleanup-windows',
      'init-control-plane',
      'install-flannel',
      'install-windows-networking',
      'join-linux-workers',
      'join-windows-workers',
      'prepare-linux',
      'prepare-windows',
      'verify',
    ]);
  });

  it('make every task of a mixed static cluster implemented', async () => {
    const spec = clusterSpecSchema.parse({
      name: 'mixed',
      provider: {
        type: 'static',
        hosts: [
          { name: 'cp1', address: '192.0.2.1', group: 'control-plane' },
          { name: 'lw1', address: '192.0.2.2', group: 'linux' },
          { name: 'win1', address: '192.0.2.3', group: 'windows' },
        ],
      },
      nodes: {
        workers: [
          { name: 'linux', os: 'linux', count: 1 },
          { name: 'windows', os: 'windows', count: 1, credentials: { password: { env: 'P' } } },
        ],
      },
    });
    const plan = buildPlan({ spec, versions: loadVersions(), playbooks: await loadClusterPlaybooks() });
    expect(plan.tasks.filter((t) => !t.implemented).map((t) => t.name)).toEqual([]);
  });
});
