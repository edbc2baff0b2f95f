import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildSummary } from '../../src/ci/build-summary.js';
import { renderTimeline } from '../../src/ci/report-timeline.js';
import { localHosts, makePlan, shell, task } from '../engine/helpers.js';
import { testTempDir } from '../helpers/temp.js';
import { runForSummary } from './helpers.js';

describe('the report timeline', () => {
  // The static provider's prepare-provider has no steps since credentials are checked when the
  // plan is made; the report's timeline left such a host out while JUnit listed it.
  it('gives a host of a task that ran no step a bar, at the task start, taking no time', async () => {
    const dir = await testTempDir('ci-timeline');
    const hosts = localHosts('node-a');
    const summary = buildSummary(
      await runForSummary({
        build: makePlan(
          [
            task('prepare-provider', [], ['node-a'], []),
            task('wait-for-hosts', ['prepare-provider'], ['node-a'], [shell('connect', 'true')]),
          ],
          hosts,
        ),
        teardown: false,
        clusterDir: join(dir, 'cluster'),
      }),
    );
    const provider = summary.tasks.find((t) => t.name === 'prepare-provider')!;
    expect(provider.status).toBe('passed');
    expect(provider.hosts[0]).toMatchObject({ host: 'node-a', status: 'passed', durationMs: 0 });
    expect(provider.hosts[0]!.startMs).toBe(provider.startMs);
    const svg = renderTimeline(summary);
    for (const name of ['prepare-provider', 'wait-for-hosts'])
      expect(svg).toMatch(new RegExp(`class="bar passed[^"]*" data-task="${name}" data-host="node-a"`));
  });
});
