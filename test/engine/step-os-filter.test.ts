import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { InventoryHost } from '../../src/types/inventory.js';
import { testTempDir } from '../helpers/temp.js';
import { makePlan, runLocally, shell, task } from './helpers.js';

describe('steps limited to one OS', () => {
  it('runs an os-limited step only on hosts of that OS', async () => {
    const dir = await testTempDir('engine');
    const hosts: InventoryHost[] = [
      { name: 'lin', address: '127.0.0.1', os: 'linux', connection: 'local', role: 'worker', group: 'g' },
      // Reached locally too: the filter is what keeps the Linux-only step off it.
      { name: 'win', address: '127.0.0.1', os: 'windows', connection: 'local', role: 'worker', group: 'g' },
    ];
    const plan = makePlan(
      [
        task(
          'cleanup',
          [],
          ['lin', 'win'],
          [
            shell('linux only', `touch ${dir}/linux-{{ inventory_hostname }}`, { os: 'linux' }),
            shell('everyone', `touch ${dir}/all-{{ inventory_hostname }}`),
          ],
        ),
      ],
      hosts,
    );
    const { summary } = await runLocally(plan, join(dir, 'cluster'));
    expect(summary.status).toBe('succeeded');
    expect(
      readdirSync(dir)
        .filter((f) => f !== 'cluster')
        .sort(),
    ).toEqual(['all-lin', 'all-win', 'linux-lin']);
  });
});
