import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { runPlanCommand } from '../../src/cli/run-plan-command.js';
import { parseTaskFile } from '../../src/playbook/parse-playbook.js';
import { planStepFromTask } from '../../src/playbook/plan-step.js';
import type { RunEvent } from '../../src/types/events.js';
import { localHosts, makePlan, task } from '../engine/helpers.js';
import { testTempDir } from '../helpers/temp.js';

// A cluster task whose steps come from a task file, as the cluster playbooks' do: one step's
// `when` is false (an offline-only step in an online build), run the way `kubemix up` runs a plan.
const STEPS = `
- name: Import the images from the artifacts directory (offline)
  command: /bin/true
  when: artifacts_dir is defined
- name: Runs everywhere
  command: /bin/true
`;

afterEach(() => {
  vi.restoreAllMocks();
  vi.unstubAllEnvs();
});

describe('a step whose when is false, in a kubemix up run', () => {
  it('is SKIPPED in the plain lines and `skipped` in the event log, never OK', async () => {
    const dir = await testTempDir('skipped-step');
    const steps = parseTaskFile(STEPS, join(dir, 'steps.yml')).map((t) => planStepFromTask(t));
    const plan = makePlan([task('prepare-linux', [], ['node-1'], steps)], localHosts('node-1'));
    // Plain lines, as on CI or with output piped.
    vi.stubEnv('CI', 'true');
    const printed: string[] = [];
    vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
      printed.push(String(chunk));
      return true;
    });
    const { code, logPath } = await runPlanCommand(plan, join(dir, 'cluster'), { logFormat: 'text' });
    vi.mocked(process.stdout.write).mockRestore();
    expect(code).toBe(0);
    const lines = printed.join('').split('\n');
    expect(lines).toContain(
      'SKIPPED prepare-linux node-1: Import the images from the artifacts directory (offline)',
    );
    expect(lines.some((line) => line.startsWith('OK    prepare-linux node-1: Import the images'))).toBe(
      false,
    );
    expect(
      lines.some((line) => /^CHANGED prepare-linux node-1: Runs everywhere \(\d+ ms\)$/.test(line)),
    ).toBe(true);

    const events = (await readFile(logPath, 'utf8'))
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as RunEvent);
    const ends = events.flatMap((e) => (e.type === 'step-end' ? [[e.step, e.status]] : []));
    expect(ends).toEqual([
      ['Import the images from the artifacts directory (offline)', 'skipped'],
      ['Runs everywhere', 'changed'],
    ]);
  });
});
