import { rm } from 'node:fs/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { renderJunit } from '../../src/ci/junit.js';
import { EXIT } from '../../src/errors/index.js';
import { localHosts, makePlan, shell, task } from '../engine/helpers.js';
import { testTempDir } from '../helpers/temp.js';
import { runAndSummarise, validateJunit } from './helpers.js';

// junit.xml from real engine runs (local processes), validated against Windy Road's JUnit.xsd
// with xmllint: what CI systems read must be what the schema of Ant's format allows.
const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })));
});
const dir = async () => {
  const d = await testTempDir('ci-junit');
  dirs.push(d);
  return d;
};

const hosts = localHosts('node-a', 'node-b');
const buildPlan = (install: string, extra: Parameters<typeof task>[4] = {}) =>
  makePlan(
    [
      task('prepare-provider', [], ['localhost'], [shell('check', 'true')]),
      task('wait-for-hosts', ['prepare-provider'], ['node-a', 'node-b'], [shell('connect', 'true')]),
      task(
        'prepare-linux',
        ['wait-for-hosts'],
        ['node-a', 'node-b'],
        [
          shell('may fail, ignored', 'echo ignored >&2; exit 9', { ignoreErrors: true }),
          shell('install', install),
        ],
        extra,
      ),
      task('verify', ['prepare-linux'], ['node-a'], [shell('check', 'true')]),
    ],
    hosts,
  );
const teardownPlan = makePlan([task('cleanup', [], ['node-a', 'node-b'], [shell('reset', 'true')])], hosts);

const testcases = (xml: string) => [
  ...xml.matchAll(/<testcase name="([^"]+)" classname="([^"]+)" time="([\d.]+)"/g),
];
const suiteOf = (xml: string, name: string) =>
  xml.slice(
    xml.indexOf(`<testsuite name="kubemix.${name}"`),
    xml.indexOf('</testsuite>', xml.indexOf(`name="kubemix.${name}"`)),
  );

describe('junit.xml', () => {
  it('has a suite per phase and a passing testcase with its time for every task on every host', async () => {
    const summary = await runAndSummarise({
      build: buildPlan('true'),
      teardown: teardownPlan,
      clusterDir: await dir(),
    });
    const xml = renderJunit(summary, { hostname: 'ci-runner' });
    const validation = await validateJunit(xml);
    expect(validation.output).toContain('validates');
    expect(validation.ok).toBe(true);
    expect([...xml.matchAll(/<testsuite name="([^"]+)"/g)].map((m) => m[1])).toEqual([
      'kubemix.provision',
      'kubemix.build',
      'kubemix.verify',
      'kubemix.teardown',
      'kubemix.artifacts',
    ]);
    expect(testcases(xml).map((m) => `${m[2]} | ${m[1]}`)).toEqual([
      'kubemix.provision.prepare-provider | prepare-provider on localhost',
      'kubemix.provision.wait-for-hosts | wait-for-hosts on node-a',
      'kubemix.provision.wait-for-hosts | wait-for-hosts on node-b',
      'kubemix.build.prepare-linux | prepare-linux on node-a',
      'kubemix.build.prepare-linux | prepare-linux on node-b',
      'kubemix.verify.verify | verify on node-a',
      // verify.yml's six checks, reported even when the plan's verify task has no such steps
      ...['node-to-pod', 'pod-to-pod', 'service-vip', 'service-dns', 'nodeport', 'outbound'].map(
        (c) => `kubemix.verify.checks | check ${c}`,
      ),
      'kubemix.teardown.cleanup | cleanup on node-a',
      'kubemix.teardown.cleanup | cleanup on node-b',
      'kubemix.artifacts | secret scan',
    ]);
    // An ignored failure (ignore_errors) is not a failure; the checks fail: verify ran, they did not.
    expect(xml).not.toContain('<error');
    expect(suiteOf(xml, 'build')).not.toContain('<failure');
    expect(suiteOf(xml, 'verify')).toContain('no result: verify stopped before this check');
    const prepare = summary.tasks.find((t) => t.name === 'prepare-linux')!;
    expect(prepare.durationMs).toBeGreaterThan(0);
    expect(prepare.hosts.map((h) => h.durationMs > 0)).toEqual([true, true]);
  });

  it('names host, task, step, the command and the last lines of its output, in a valid file', async () => {
    const failing =
      'if [ "$PWD" ]; then printf "one\\ntwo\\n\\033[31mthree in red\\033[0m\\n" >&2; exit 4; fi';
    const plan = buildPlan('true');
    plan.tasks[2]!.steps[1] = { ...plan.tasks[2]!.steps[1]!, args: { cmd: failing } };
    plan.tasks[2]!.hosts = ['node-b'];
    const summary = await runAndSummarise({ build: plan, teardown: teardownPlan, clusterDir: await dir() });
    const xml = renderJunit(summary, { hostname: 'ci-runner' });
    const validation = await validateJunit(xml);
    expect(validation.output).toContain('validates');
    const build = suiteOf(xml, 'build');
    expect(build).toContain('failures="1"');
    const failure = build.slice(build.indexOf('<testcase name="prepare-linux on node-b"'));
    expect(failure).toContain(
      'message="prepare-linux failed on node-b: step &quot;install&quot;: exit code 4"',
    );
    expect(failure).toContain('host: node-b\ntask: prepare-linux\nstep: install\n');
    expect(failure).toContain(
      `ran: ${failing.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;').replaceAll('"', '&quot;')}`,
    );
    expect(failure).toContain('exit code: 4');
    // The terminal escapes are replaced: XML 1.0 has no place for them.
    expect(failure).toContain('one\ntwo\n\uFFFD[31mthree in red\uFFFD[0m');
    // What needed it did not run; the teardown still ran.
    expect(suiteOf(xml, 'verify')).toContain('<skipped message="a task it needs failed"/>');
    expect(summary.outcome).toBe('failed');
    expect(summary.exitCode).toBe(1);
    expect(suiteOf(xml, 'teardown')).toContain('tests="2" failures="0" errors="0" skipped="0"');
  });

  it('reports a step that passed on a retry as passed, and retried', async () => {
    const d = await dir();
    const flaky = `test -f ${d}/tried || { touch ${d}/tried; echo first try fails >&2; exit 1; }`;
    const plan = buildPlan('true');
    plan.tasks[2]!.hosts = ['node-a'];
    plan.tasks[2]!.steps[1] = { ...plan.tasks[2]!.steps[1]!, args: { cmd: flaky }, retries: 2, delayMs: 1 };
    const summary = await runAndSummarise({ build: plan, teardown: teardownPlan, clusterDir: d });
    const prepare = summary.tasks.find((t) => t.name === 'prepare-linux')!;
    expect([prepare.status, prepare.retried, prepare.hosts[0]!.retried]).toEqual(['passed', true, true]);
    expect((await validateJunit(renderJunit(summary, { hostname: 'h' }))).ok).toBe(true);
  });

  it('reports what kubemix ci stopped as errors, and a kept cluster as a skipped teardown', async () => {
    const plan = buildPlan('sleep 30');
    const controller = new AbortController();
    const summary = await runAndSummarise({
      build: plan,
      teardown: false,
      clusterDir: await dir(),
      signal: controller.signal,
      stoppedBy: 'timed-out',
      onBuildEvent: (event) => {
        if (event.type === 'step-start' && event.step === 'install') controller.abort();
      },
    });
    const xml = renderJunit(summary, { hostname: 'ci-runner' });
    expect((await validateJunit(xml)).output).toContain('validates');
    const errors = [
      ...suiteOf(xml, 'build').matchAll(
        /<error message="([^"]+)" type="([^"]+)">host: (\S+)\ntask: (\S+)\nstep: ([^\n]+)\n/g,
      ),
    ];
    expect(errors.map((m) => [m[1], m[2], m[3], m[4]])).toEqual([
      ['stopped: the time budget ran out', 'timed-out', 'node-a', 'prepare-linux'],
      ['stopped: the time budget ran out', 'timed-out', 'node-b', 'prepare-linux'],
    ]);
    // The step that was running when the budget ran out is named.
    expect(errors.map((m) => m[5])).toContain('install');
    expect(suiteOf(xml, 'teardown')).toContain(
      '<skipped message="not run: the cluster was kept as asked (--keep-on-failure); run kubemix down when done"/>',
    );
    expect([summary.outcome, summary.exitCode]).toEqual(['timed-out', EXIT.timedOut]);
  });

  it('does not count a host that had finished its steps as stopped', async () => {
    // node-a finishes prepare-linux at once; node-b is still at it when the run is stopped. The stop
    // waits for both: node-a's install ended and node-b's begun (under load node-a could finish
    // before node-b had left the step before it).
    const plan = buildPlan('test "{{ inventory_hostname }}" = node-a || sleep 30');
    const controller = new AbortController();
    const seen = new Set<string>();
    const summary = await runAndSummarise({
      build: plan,
      teardown: teardownPlan,
      clusterDir: await dir(),
      signal: controller.signal,
      stoppedBy: 'interrupted',
      onBuildEvent: (event) => {
        if (event.type === 'step-end' && event.step === 'install' && event.host === 'node-a')
          seen.add('node-a ended');
        if (event.type === 'step-start' && event.step === 'install' && event.host === 'node-b')
          seen.add('node-b began');
        if (seen.size === 2) controller.abort();
      },
    });
    const prepare = summary.tasks.find((t) => t.name === 'prepare-linux')!;
    expect(prepare.hosts.map((h) => [h.host, h.status])).toEqual([
      ['node-a', 'passed'],
      ['node-b', 'error'],
    ]);
    expect(prepare.hosts[1]!.failure).toMatchObject({ kind: 'interrupted', step: 'install' });
    expect([summary.outcome, summary.exitCode, summary.teardown.status]).toEqual([
      'interrupted',
      130,
      'passed',
    ]);
  });

  it('counts a task with no hosts to run on as done, not as a task that did not run', async () => {
    const plan = buildPlan('true');
    plan.tasks.splice(3, 0, task('join-linux-workers', ['prepare-linux'], [], [shell('join', 'true')]));
    const summary = await runAndSummarise({ build: plan, teardown: teardownPlan, clusterDir: await dir() });
    const join = summary.tasks.find((t) => t.name === 'join-linux-workers')!;
    expect([join.status, join.reason]).toEqual(['passed', 'no hosts to run on']);
    const xml = renderJunit(summary, { hostname: 'h' });
    expect(xml).toContain(
      '<testcase name="join-linux-workers" classname="kubemix.build.join-linux-workers" time="0.000"/>',
    );
    expect((await validateJunit(xml)).ok).toBe(true);
    expect(summary.message).not.toContain('join-linux-workers');
  });

  it('is checked by a validator that rejects what the schema does not allow', async () => {
    // Without this, a validator that accepts anything would pass every test above.
    const invalid = `<?xml version="1.0"?><testsuites><testsuite name="x" package="p" id="0" timestamp="2026-01-01T00:00:00" hostname="h" tests="1" failures="0" errors="0" time="1"><properties/><testcase name="a" classname="b"/><system-out/><system-err/></testsuite></testsuites>`;
    const result = await validateJunit(invalid);
    expect(result.ok).toBe(false);
    expect(result.output).toContain("The attribute 'time' is required but missing");
  });
});
