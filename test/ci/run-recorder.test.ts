import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RunRecorder } from '../../src/ci/run-recorder.js';
import { runClusterPlan } from '../../src/cluster/run-plan.js';
import { localHosts, localTransports, makePlan, task } from '../engine/helpers.js';
import { testTempDir } from '../helpers/temp.js';

let dir: string;
beforeEach(async () => {
  dir = await testTempDir('ci-recorder');
});
afterEach(() => rm(dir, { recursive: true, force: true }));

describe('the CI recorder and retries', () => {
  it("keeps the output of a failed step's last attempt, and marks the host retried", async () => {
    const counter = join(dir, 'n');
    // A playbook until-loop that never holds: three attempts, each printing its number.
    const plan = makePlan(
      [
        task(
          'prepare-linux',
          [],
          ['node-a'],
          [
            {
              name: 'count',
              module: 'shell',
              args: {
                cmd: `n=$(cat ${counter} 2>/dev/null || echo 0); n=$((n+1)); echo $n > ${counter}; echo "attempt $n"`,
              },
              register: 'count',
              keywords: { until: 'false', retries: 2, delay: 0.001 },
            },
          ],
        ),
      ],
      localHosts('node-a'),
    );
    const recorder = new RunRecorder();
    const summary = await runClusterPlan({
      plan,
      clusterDir: join(dir, 'c'),
      transports: localTransports,
      onEvent: recorder.listener('build'),
    });
    expect(summary.status).toBe('failed');
    const host = recorder.tasks.get('prepare-linux')?.hosts.get('node-a');
    expect(host?.retried).toBe(true);
    expect(host?.failure?.outputTail).toBe('attempt 3');
  });
});
