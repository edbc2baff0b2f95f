import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runClusterPlan } from '../../src/cluster/run-plan.js';
import { loadClusterPlaybooks } from '../../src/playbook/cluster-playbooks.js';
import { LocalTransport } from '../../src/transport/local/index.js';
import type { RunEvent } from '../../src/types/events.js';
import type { InventoryHost } from '../../src/types/inventory.js';
import type { Plan } from '../../src/types/plan.js';
import { testTempDir } from '../helpers/temp.js';

const fixtureDir = fileURLToPath(new URL('../../fixtures/cluster-playbooks-test', import.meta.url));

describe('cluster plan steps from task files', () => {
  it('runs Ansible keywords through the engine, keeps no_log output secret, shares outputs across tasks', async () => {
    const work = await testTempDir('pbexec');
    const playbooks = await loadClusterPlaybooks(fixtureDir);
    expect(Object.keys(playbooks).sort()).toEqual(['first', 'second-linux']);
    const host: InventoryHost = {
      name: 'node-a',
      address: '127.0.0.1',
      os: 'linux',
      connection: 'local',
      role: 'worker',
      group: 'g',
    };
    const plan: Plan = {
      cluster: 'demo',
      hosts: [host],
      vars: { cluster_name: 'demo', work_dir: work },
      tasks: [
        {
          name: 'first',
          description: '',
          needs: [],
          hosts: ['node-a'],
          steps: playbooks['first']!,
          implemented: true,
        },
        {
          name: 'second',
          description: '',
          needs: ['first'],
          hosts: ['node-a'],
          steps: playbooks['second-linux']!.map((s) => ({ ...s, os: 'linux' as const })),
          implemented: true,
        },
      ],
    };
    const events: RunEvent[] = [];
    const clusterDir = join(work, 'cluster');
    const summary = await runClusterPlan({
      plan,
      clusterDir,
      transports: (h) => new LocalTransport(h.name),
      onEvent: (e) => events.push(e),
    });
    expect(summary.error ?? '').toBe('');
    expect(summary.status).toBe('succeeded');
    expect(await readFile(join(work, 'node-a.same-task'), 'utf8')).toBe('ok\n');
    expect(await readFile(join(work, 'node-a.items'), 'utf8')).toBe('a\nc\n');
    expect(await readFile(join(work, 'node-a.from-outputs'), 'utf8')).toBe('token-demo\n');
    expect(await readFile(join(work, 'count-node-a'), 'utf8')).toBe('3\n');
    // The no_log value reached the next task, but never the events or the state file.
    expect(JSON.stringify(events)).not.toContain('token-demo');
    expect(await readFile(join(clusterDir, 'state.json'), 'utf8')).not.toContain('token-demo');
  });

  it('reports a task file problem with file, line and column', async () => {
    const { parseTaskFile } = await import('../../src/playbook/index.js');
    expect(() => parseTaskFile('- name: x\n  frobnicate: {}\n', 'bad.yml')).toThrow(/bad\.yml:2:3/);
  });
});
