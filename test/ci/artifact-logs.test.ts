import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ArtifactLogs, HOST_LOG_DIR } from '../../src/ci/artifact-logs.js';
import { runClusterPlan } from '../../src/cluster/run-plan.js';
import { parseTaskFile } from '../../src/playbook/parse-playbook.js';
import { planStepFromTask } from '../../src/playbook/plan-step.js';
import { localHosts, localTransports, makePlan, task } from '../engine/helpers.js';
import { testTempDir } from '../helpers/temp.js';

describe("kubemix ci's per-host logs", () => {
  it('say a step whose when is false was skipped, without an exit code for a command that never ran', async () => {
    const dir = await testTempDir('artifact-logs');
    const steps = parseTaskFile(
      `
- name: Import the images from the artifacts directory (offline)
  command: /bin/true
  when: artifacts_dir is defined
- name: Runs everywhere
  command: /bin/true
`,
      join(dir, 'steps.yml'),
    ).map((t) => planStepFromTask(t));
    const logs = await ArtifactLogs.open(join(dir, 'out'));
    const summary = await runClusterPlan({
      plan: makePlan([task('prepare-linux', [], ['node-1'], steps)], localHosts('node-1')),
      clusterDir: join(dir, 'cluster'),
      transports: localTransports,
      onEvent: logs.listener,
    });
    await logs.close();
    expect(summary.status).toBe('succeeded');
    const lines = (await readFile(join(dir, 'out', HOST_LOG_DIR, 'node-1.log'), 'utf8'))
      .trim()
      .split('\n')
      .map((line) => line.replace(/^\S+ /, ''));
    expect(lines).toContain(
      'prepare-linux | Import the images from the artifacts directory (offline) | skipped: nothing ran',
    );
    expect(
      lines.some((line) => /^prepare-linux \| Runs everywhere \| changed \(exit 0, \d+ ms\): /.test(line)),
    ).toBe(true);
  });
});
