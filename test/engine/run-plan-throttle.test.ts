import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runClusterPlan } from '../../src/cluster/run-plan.js';
import { THROTTLE_NOT_INTEGER } from '../../src/engine/throttle.js';
import { parseTaskFile } from '../../src/playbook/parse-playbook.js';
import { planStepFromTask } from '../../src/playbook/plan-step.js';
import { testTempDir } from '../helpers/temp.js';
import { lines, localHosts, localTransports, makePlan, recorder, task } from './helpers.js';

const HOSTS = ['h1', 'h2', 'h3', 'h4'];

/**
 * A task file step that records how many hosts run it at once: mkdir is atomic, so each host
 * registers itself, counts the registered hosts, holds its place a moment, then leaves.
 */
function probeTask(dir: string, label: string, throttle?: string): string {
  return `
- name: probe ${label}
  shell: mkdir ${dir}/running.${label}.{{ inventory_hostname }} && ls -d ${dir}/running.${label}.* | wc -l >> ${dir}/counts.${label}; sleep 0.3; rmdir ${dir}/running.${label}.{{ inventory_hostname }}
${throttle === undefined ? '' : `  throttle: ${throttle}\n`}`;
}

async function runTaskFile(dir: string, text: string, forks = 10) {
  const steps = parseTaskFile(text, join(dir, 'steps.yml')).map((t) => planStepFromTask(t));
  const events = recorder();
  const summary = await runClusterPlan({
    plan: makePlan([task('t', [], HOSTS, steps)], localHosts(...HOSTS)),
    clusterDir: join(dir, 'cluster'),
    transports: localTransports,
    forks,
    onEvent: events.onEvent,
  });
  return { summary, events };
}

const maxOf = async (path: string) => Math.max(...(await lines(path)).map(Number));

describe('runPlan with throttle (Ansible keyword, from a task file)', () => {
  it('runs a `throttle: 1` step on one host at a time while the same hosts run other steps in parallel', async () => {
    const dir = await testTempDir('throttle');
    const { summary } = await runTaskFile(
      dir,
      // Hosts leave a throttled step one by one, so the step with the largest limit comes first.
      `${probeTask(dir, 'free')}${probeTask(dir, 'two', '2')}${probeTask(dir, 'one', '1')}`,
    );
    expect(summary.status).toBe('succeeded');
    for (const label of ['free', 'one', 'two'])
      expect(await lines(join(dir, `counts.${label}`))).toHaveLength(4);
    // The probe does see parallel hosts: without throttle, more than one host ran the step at once.
    expect(await maxOf(join(dir, 'counts.free'))).toBeGreaterThan(1);
    expect(await maxOf(join(dir, 'counts.one'))).toBe(1);
    expect(await maxOf(join(dir, 'counts.two'))).toBe(2);
  });

  it('never lets throttle raise the number of hosts above forks', async () => {
    const dir = await testTempDir('throttle');
    const { summary } = await runTaskFile(dir, probeTask(dir, 'wide', '4'), 2);
    expect(summary.status).toBe('succeeded');
    expect(await maxOf(join(dir, 'counts.wide'))).toBe(2);
  });

  it("fails the step on every host, with Ansible's words, when throttle is not an integer", async () => {
    const dir = await testTempDir('throttle');
    const { summary, events } = await runTaskFile(dir, probeTask(dir, 'bad', '"{{ not_rendered }}"'));
    expect(summary.status).toBe('failed');
    expect(summary.error).toContain(THROTTLE_NOT_INTEGER);
    expect(await lines(join(dir, 'counts.bad'))).toEqual([]);
    expect(events.of('step-end').map((e) => e.status)).toEqual(['failed', 'failed', 'failed', 'failed']);
  });
});
