import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { buildSummary, type SummaryInput } from '../../src/ci/build-summary.js';
import { RunRecorder } from '../../src/ci/run-recorder.js';
import type { CiSummary } from '../../src/ci/summary-types.js';
import { buildPhases } from '../../src/ci/timeline.js';
import { runClusterPlan } from '../../src/cluster/run-plan.js';
import type { RunSummary } from '../../src/engine/types.js';
import type { RunEvent } from '../../src/types/events.js';
import type { Plan } from '../../src/types/plan.js';
import { localTransports } from '../engine/helpers.js';
import { testTempDir } from '../helpers/temp.js';

/** Windy Road's JUnit.xsd (see fixtures/README.md): the schema junit.xml must satisfy. */
export const JUNIT_XSD = fileURLToPath(new URL('./fixtures/JUnit.xsd', import.meta.url));

/** Validates an XML text against the JUnit schema with Debian's xmllint (libxml2-utils). */
export async function validateJunit(xml: string): Promise<{ ok: boolean; output: string }> {
  const dir = await testTempDir('junit');
  try {
    const file = join(dir, 'junit.xml');
    await writeFile(file, xml);
    const result = await execa('xmllint', ['--noout', '--schema', JUNIT_XSD, file], { reject: false });
    return { ok: result.exitCode === 0, output: `${result.stdout}${result.stderr}` };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * Runs real plans through the real engine (local processes) with the CI recorder subscribed, as
 * `kubemix ci` does: the build plan, then (unless `teardown` is false) the teardown plan. Returns
 * the summary of both.
 */
export async function runAndSummarise(options: {
  build: Plan;
  teardown?: Plan | false;
  clusterDir: string;
  signal?: AbortSignal;
  /** Also sees the build's events (to stop it at a chosen moment). */
  onBuildEvent?: (event: RunEvent) => void;
  stoppedBy?: 'interrupted' | 'timed-out';
  extra?: Partial<SummaryInput>;
}): Promise<CiSummary> {
  return buildSummary(await runForSummary(options));
}

/** {@link runAndSummarise}'s runs, returning what the summary is made from. */
export async function runForSummary(
  options: Parameters<typeof runAndSummarise>[0] & { listeners?: ((event: RunEvent) => void)[] },
): Promise<SummaryInput> {
  const startedAt = new Date();
  const recorder = new RunRecorder();
  const also = (event: RunEvent) => {
    for (const listener of options.listeners ?? []) listener(event);
  };
  const build = await runClusterPlan({
    plan: options.build,
    clusterDir: join(options.clusterDir, 'build'),
    transports: localTransports,
    onEvent: (event) => {
      recorder.listener('build')(event);
      also(event);
      options.onBuildEvent?.(event);
    },
    ...(options.signal ? { signal: options.signal } : {}),
  });
  let teardown: RunSummary | undefined;
  if (options.teardown)
    teardown = await runClusterPlan({
      plan: options.teardown,
      clusterDir: join(options.clusterDir, 'teardown'),
      transports: localTransports,
      onEvent: (event) => {
        recorder.listener('teardown')(event);
        also(event);
      },
    });
  return {
    cluster: options.build.cluster,
    spec: 'test-spec.yaml',
    startedAt,
    finishedAt: new Date(),
    recorder,
    runs: [
      {
        kind: 'build',
        plan: options.build,
        phases: buildPhases(options.build),
        summary: build,
        notRunReason: 'not run: the build stopped',
        ...(options.stoppedBy ? { stoppedBy: options.stoppedBy } : {}),
      },
      ...(options.teardown
        ? [
            {
              kind: 'teardown' as const,
              plan: options.teardown,
              phases: new Map(options.teardown.tasks.map((t) => [t.name, 'teardown' as const])),
              ...(teardown ? { summary: teardown } : {}),
              notRunReason: 'not run',
            },
          ]
        : []),
    ],
    verify: {},
    build: options.stoppedBy ? { stoppedBy: options.stoppedBy } : {},
    teardown: { kept: options.teardown === false, ...(teardown ? { summary: teardown } : {}) },
    secretFindings: [],
    filesScanned: 0,
    versions: { kubemix: '0.0.0-test', kubernetes: '1.31.2' },
    hosts: options.build.hosts,
    reportingMs: 0,
    ...options.extra,
  };
}
