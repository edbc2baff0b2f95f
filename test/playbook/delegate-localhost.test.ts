import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runClusterPlan } from '../../src/cluster/run-plan.js';
import type { PlanStep } from '../../src/types/plan.js';
import { localHosts, localTransports, makePlan, recorder, task } from '../engine/helpers.js';
import { testTempDir } from '../helpers/temp.js';

// The playbook step executor's delegate_to: localhost from a task on other hosts, with localhost
// not listed in the plan (Ansible's implicit localhost, src/playbook/step-executor.ts), as the
// libvirt golden-image task uses it to edit the cluster's own known_hosts; `127.0.0.1` names this
// machine too, as in `kubemix run` (Ansible's C.LOCALHOST). A host the plan does not have is still refused.

async function run(dir: string, step: PlanStep) {
  const events = recorder();
  const summary = await runClusterPlan({
    plan: makePlan([task('t', [], ['hv'], [step])], localHosts('hv')),
    clusterDir: join(dir, 'cluster'),
    transports: localTransports,
    onEvent: events.onEvent,
  });
  return { summary, events };
}

describe('delegate_to localhost', () => {
  it('runs the step on the implicit localhost although the plan does not list it', async () => {
    const dir = await testTempDir('delegate');
    const file = join(dir, 'known_hosts');
    await writeFile(file, '10.0.0.12 ssh-ed25519 AAAAold\n10.0.0.13 ssh-ed25519 AAAAkept\n');
    const { summary } = await run(dir, {
      name: 'forget',
      module: 'lineinfile',
      args: { path: file, state: 'absent', regexp: '^10\\.0\\.0\\.12\\s' },
      keywords: { delegateTo: 'localhost' },
    });
    expect(summary.status).toBe('succeeded');
    expect(await readFile(file, 'utf8')).toBe('10.0.0.13 ssh-ed25519 AAAAkept\n');
  });

  it('takes 127.0.0.1 for this machine too, as `kubemix run` does (one rule for both: delegateHostNamed)', async () => {
    const dir = await testTempDir('delegate');
    const file = join(dir, 'known_hosts');
    await writeFile(file, '10.0.0.12 ssh-ed25519 AAAAold\n');
    const { summary } = await run(dir, {
      name: 'forget',
      module: 'lineinfile',
      args: { path: file, state: 'absent', regexp: '^10\\.0\\.0\\.12\\s' },
      keywords: { delegateTo: '127.0.0.1' },
    });
    expect(summary.status, summary.error).toBe('succeeded');
    expect(await readFile(file, 'utf8')).toBe('');
  });

  it('still refuses a delegate the plan does not have', async () => {
    const dir = await testTempDir('delegate');
    const { summary } = await run(dir, {
      name: 'nowhere',
      module: 'shell',
      args: { cmd: 'true' },
      keywords: { delegateTo: 'elsewhere' },
    });
    expect(summary.status).toBe('failed');
    expect(summary.error).toContain('delegate_to names a host that is not in the plan');
  });
});
