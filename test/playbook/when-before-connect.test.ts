import { existsSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runClusterPlan } from '../../src/cluster/run-plan.js';
import { ConnectionError } from '../../src/errors/index.js';
import { parseInventory, parsePlaybook, runPlaybook } from '../../src/playbook/index.js';
import { LocalTransport } from '../../src/transport/local/index.js';
import type { InventoryHost } from '../../src/types/inventory.js';
import type { Plan } from '../../src/types/plan.js';
import { testTempDir } from '../helpers/temp.js';
import { localTransports } from './helpers.js';

// Ansible evaluates a task's `when` before it connects (TaskExecutor._execute checks the
// conditional before _get_connection): a skipped task never waits for a host, or its
// delegate_to host, that does not answer. These hosts named `unreachable*` have no connection.

let work: string;
beforeEach(async () => {
  work = await testTempDir('when-first');
});
afterEach(() => rm(work, { recursive: true, force: true }));

describe('when is read before connecting (kubemix run)', () => {
  it('skips a false-when task on an unreachable host and one delegated to it; a true one still finds it unreachable', async () => {
    const inventory = parseInventory(`
all:
  hosts:
    web1: { ansible_connection: local }
    unreachable1: { ansible_host: 192.0.2.1 }
`);
    const result = await runPlaybook({
      playbook: {
        ...parsePlaybook(`
- hosts: all
  gather_facts: false
  tasks:
    - name: only on web1
      command: touch ${work}/{{ inventory_hostname }}-1
      when: inventory_hostname == 'web1'
    - name: delegated to the unreachable host, but not now
      command: touch ${work}/delegated
      delegate_to: unreachable1
      when: false
    - name: on web1 again
      command: touch ${work}/{{ inventory_hostname }}-2
      when: inventory_hostname == 'web1'
    - name: now on every host
      command: "true"
`),
        dir: work,
      },
      inventory,
      transports: localTransports,
    });
    expect(result.stats['web1']).toMatchObject({ ok: 3, failed: 0, unreachable: 0, skipped: 1 });
    // Skipped twice without connecting, then unreachable when a task really runs there.
    expect(result.stats['unreachable1']).toMatchObject({ skipped: 3, unreachable: 1, ok: 0 });
    expect(existsSync(join(work, 'web1-2'))).toBe(true);
    expect(existsSync(join(work, 'delegated'))).toBe(false);
  });
});

describe('when is read before connecting (cluster plan steps)', () => {
  it('skips a step delegated to a host that does not answer, and runs the next step', async () => {
    const host = (name: string): InventoryHost => ({
      name,
      address: '127.0.0.1',
      os: 'linux',
      connection: 'local',
      role: 'worker',
      group: 'g',
    });
    const plan: Plan = {
      cluster: 'demo',
      hosts: [host('hypervisor'), host('unreachable-guest')],
      vars: { work_dir: work },
      tasks: [
        {
          name: 'golden',
          description: '',
          needs: [],
          hosts: ['hypervisor'],
          implemented: true,
          steps: [
            {
              name: 'on the guest, only when capturing',
              module: 'command',
              args: { cmd: `touch ${join(work, 'on-guest')}` },
              keywords: { when: 'false', delegateTo: 'unreachable-guest' },
            },
            {
              name: 'on the hypervisor',
              module: 'command',
              args: { cmd: `touch ${join(work, 'on-hypervisor')}` },
            },
          ],
        },
      ],
    };
    const summary = await runClusterPlan({
      plan,
      clusterDir: join(work, 'cluster'),
      transports: (h) => {
        if (h.name.startsWith('unreachable'))
          throw new ConnectionError(h.name, 'connection refused (test host without a transport)');
        return new LocalTransport(h.name);
      },
      onEvent: () => undefined,
    });
    expect(summary.error ?? '').toBe('');
    expect(summary.status).toBe('succeeded');
    expect(existsSync(join(work, 'on-hypervisor'))).toBe(true);
    expect(existsSync(join(work, 'on-guest'))).toBe(false);
  });
});
