import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { writeLabSpec } from '../../fixtures/cluster-lab/lab-spec.js';
import { type MixedClusterLab, startMixedClusterLab } from '../../fixtures/cluster-lab/mixed-lab.js';
import { kubemixCli } from '../../scripts/lab/kubemix-cli.js';
import type { CiSummary } from '../../src/ci/summary-types.js';
import { EXIT } from '../../src/errors/index.js';
import { validateJunit } from '../ci/helpers.js';
import { withPageInChromium } from '../helpers/chromium.js';
import { testTempDir } from '../helpers/temp.js';
import { kubemix } from './helpers.js';

// `kubemix ci` end to end on the mixed lab (real sshd Linux hosts with the Kubernetes stand-ins,
// simulated Windows Server hosts over WinRM): build, verify, always tear down, and what it writes.
// Each test takes a fresh Windows host (it keeps containerd and its features after a teardown, as
// a real one does); the Linux hosts are cleaned by every teardown.
let lab: MixedClusterLab;
let work: string;
/** The cluster of the test running now, torn down after it if anything is left. */
let current: { spec: string; clusterDir: string } | undefined;

const cli = kubemixCli();

beforeAll(async () => {
  lab = await startMixedClusterLab({ controllers: 1, linuxWorkers: 1, windowsWorkers: 6, rebootDownMs: 200 });
  work = await testTempDir('ci-e2e');
});

afterEach(async () => {
  await writeFile(lab.failuresFile, '{}');
  // A build kubemix ci did not tear down (the teardown test) is finished off here.
  if (current && existsSync(join(current.clusterDir, 'state.json')))
    await kubemix(['down', current.spec, '--cluster-dir', current.clusterDir]);
  current = undefined;
});

afterAll(async () => {
  await lab?.stop();
  if (work) await rm(work, { recursive: true, force: true });
});

/** A spec for the two Linux hosts and one Windows host, and where its run goes. */
async function setup(name: string, windowsHost: string) {
  const dir = join(work, name);
  await mkdir(dir, { recursive: true });
  const spec = await writeLabSpec(dir, {
    name,
    linuxHosts: lab.linux.hosts,
    controllers: 1,
    windowsHosts: lab.windows.hosts.filter((h) => h.name === windowsHost),
    knownHostsPath: lab.linux.knownHostsPath,
    privateKeyPath: lab.linux.privateKeyPath,
  });
  const clusterDir = join(dir, 'cluster');
  current = { spec, clusterDir };
  return { spec, clusterDir, out: join(dir, 'out') };
}

const readSummary = async (out: string) =>
  JSON.parse(await readFile(join(out, 'summary.json'), 'utf8')) as CiSummary;

/** The run's junit.xml, checked against the JUnit schema. */
async function validJunit(out: string): Promise<string> {
  const xml = await readFile(join(out, 'junit.xml'), 'utf8');
  expect((await validateJunit(xml)).output).toContain('validates');
  return xml;
}

/**
 * Runs `work` with PrepareNode.ps1 taking 10 minutes on the simulator (durations at full scale),
 * so a build is surely still running when a test stops it; the environment is restored after.
 */
async function withSlowPrepareNode(work: () => Promise<void>): Promise<void> {
  process.env['KUBEMIX_STANDIN_DURATIONS'] = JSON.stringify({ 'PrepareNode.ps1': 600_000 });
  process.env['KUBEMIX_STANDIN_SCALE'] = '1';
  try {
    await work();
  } finally {
    delete process.env['KUBEMIX_STANDIN_DURATIONS'];
    delete process.env['KUBEMIX_STANDIN_SCALE'];
  }
}

/** `<testcase>`s of one suite: [name, what it holds (failure/error/skipped or nothing)]. */
function cases(xml: string, suite: string): [string, string][] {
  const start = xml.indexOf(`<testsuite name="kubemix.${suite}"`);
  const body = xml.slice(start, xml.indexOf('</testsuite>', start));
  return [...body.matchAll(/<testcase name="([^"]+)"[^>]*?(\/>|>\s*<(\w+))/g)].map((m) => [
    m[1]!,
    m[3] ?? 'passed',
  ]);
}

/** Nothing of the cluster is left: no nodes, no cluster in the lab's API server, the Windows node reset. */
async function expectLabClean(windowsHost: string) {
  expect(await lab.linux.cluster.nodes()).toEqual([]);
  expect(await lab.linux.cluster.cluster()).toBeFalsy();
  const host = lab.windows.host(windowsHost);
  expect(host.fs.exists('C:\\etc\\kubernetes\\kubelet.conf')).toBe(false);
  expect(host.service('kubelet')?.state ?? 'stopped').toBe('stopped');
}

const history = () => join(work, 'history');

describe('kubemix ci', () => {
  it('passes: exit 0, every JUnit testcase green, the teardown ran, and a report that renders', async () => {
    const { spec, clusterDir, out } = await setup('ci-pass', 'win-01');
    const run = await kubemix([
      'ci',
      spec,
      '--cluster-dir',
      clusterDir,
      '--out',
      out,
      '--history',
      history(),
    ]);
    expect(run.stderr).toBe('');
    expect(run.exitCode).toBe(0);
    expect(run.stdout).toContain('kubemix ci: PASSED');

    const xml = await validJunit(out);
    const summary = await readSummary(out);
    const expected = summary.tasks.flatMap((t) => t.hosts.map((h) => `${t.name} on ${h.host}`));
    expect(expected.length).toBeGreaterThan(10);
    const all = ['provision', 'build', 'verify', 'teardown', 'artifacts'].flatMap((s) => cases(xml, s));
    for (const name of expected) expect(all.map(([n]) => n)).toContain(name);
    expect(all.filter(([, status]) => status !== 'passed')).toEqual([]);
    expect(cases(xml, 'verify').filter(([n]) => n.startsWith('check '))).toHaveLength(6);
    // down ran: the teardown suite has cleanup on every node, and the lab is clean.
    expect(cases(xml, 'teardown').map(([n]) => n)).toEqual([
      'cleanup on lab-01',
      'cleanup on lab-02',
      'cleanup on win-01',
    ]);
    expect(summary.teardown.status).toBe('passed');
    await expectLabClean('win-01');

    // Everything the issue lists is there, and nothing secret is.
    for (const file of [
      'report.html',
      'summary.json',
      'events.jsonl',
      'plan.txt',
      'verify.json',
      'versions.json',
      'spec.resolved.yaml',
      'spec/ci-pass.yaml',
      'hosts/lab-01.log',
      'hosts/win-01.log',
    ])
      expect(existsSync(join(out, file)), file).toBe(true);
    expect(summary.secretScan.findings).toEqual([]);
    const password = process.env[lab.passwordEnv]!;
    for (const file of await readdir(out, { recursive: true })) {
      if ((await stat(join(out, file))).isDirectory()) continue;
      const text = await readFile(join(out, file), 'utf8');
      expect(text, file).not.toContain(password);
      expect(text, file).not.toMatch(/(?<![a-z0-9.])[a-z0-9]{6}\.[a-z0-9]{16}(?![a-z0-9])/);
    }

    // The report in real Chromium: no console errors, nothing fetched, a bar for every task on every host.
    const shots = process.env['KUBEMIX_SCREENSHOT_DIR'] ?? out;
    await withPageInChromium(join(out, 'report.html'), async (page) => {
      const bars = await page.evaluate(() =>
        [...document.querySelectorAll('svg.timeline g.bar')].map((g) => {
          const box = g.querySelector('rect.span')!.getBoundingClientRect();
          return {
            name: `${g.getAttribute('data-task')} on ${g.getAttribute('data-host')}`,
            width: box.width,
          };
        }),
      );
      expect(bars.map((b) => b.name).sort()).toEqual([...expected].sort());
      expect(bars.filter((b) => !(b.width > 0))).toEqual([]);
      expect(await page.evaluate(() => document.querySelector('header.outcome h1')?.textContent)).toBe(
        'PASSED',
      );
      expect(page.errors).toEqual([]);
      expect(page.requests).toEqual([]);
      await page.screenshot(join(shots, 'ci-pass-report.png'));
      await page.screenshot(join(shots, 'ci-pass-timeline.png'), 'svg.timeline');
    });
  });

  it('fails on a Windows task: JUnit names task, host and command, down ran, the lab is clean, exit 1', async () => {
    const { spec, clusterDir, out } = await setup('ci-fail', 'win-02');
    await writeFile(lab.failuresFile, JSON.stringify({ 'Install-Containerd.ps1@win-02': 1 }));
    const run = await kubemix([
      'ci',
      spec,
      '--cluster-dir',
      clusterDir,
      '--out',
      out,
      '--history',
      history(),
    ]);
    expect(run.exitCode).toBe(1);
    expect(run.stderr).toContain('FAILED prepare-windows on win-02: Install containerd');

    const xml = await validJunit(out);
    expect(cases(xml, 'build')).toContainEqual(['prepare-windows on win-02', 'failure']);
    const failure = xml.slice(xml.indexOf('<testcase name="prepare-windows on win-02"'));
    expect(failure).toMatch(
      /<failure message="prepare-windows failed on win-02: step &quot;Install containerd[^"]*&quot;: exit code 1" type="failed">host: win-02\ntask: prepare-windows\n/,
    );
    expect(failure.slice(0, failure.indexOf('</failure>'))).toContain(
      'ran: &amp; C:/k/Install-Containerd.ps1 -ContainerDVersion',
    );
    expect(failure.slice(0, failure.indexOf('</failure>'))).toContain(
      'failure injected by the kubemix lab: Install-Containerd.ps1@win-02 fails on win-02',
    );
    expect(cases(xml, 'teardown').every(([, status]) => status === 'passed')).toBe(true);
    await expectLabClean('win-02');
    const summary = await readSummary(out);
    expect([summary.outcome, summary.exitCode, summary.teardown.status]).toEqual(['failed', 1, 'passed']);

    // The history has both runs; prepare-windows passed in one and failed in the other: flaky.
    const html = await readFile(join(out, 'report.html'), 'utf8');
    const section = html.slice(html.indexOf('<section id="history">'));
    expect(section).toContain('History (2 runs)');
    expect(section).toMatch(/<h3>Flaky tasks<\/h3>[\s\S]*<td>prepare-windows<\/td><td>1<\/td><td>1<\/td>/);
    await withPageInChromium(join(out, 'report.html'), async (page) => {
      expect(page.errors).toEqual([]);
      const shots = process.env['KUBEMIX_SCREENSHOT_DIR'];
      if (shots) await page.screenshot(join(shots, 'ci-fail-report.png'));
      expect(await page.evaluate(() => document.querySelector('#failures h3')?.textContent)).toBe(
        'prepare-windows on win-02 build',
      );
    });
  });

  it('stops the build on SIGTERM, runs the teardown, and exits non-zero', async () => {
    const { spec, clusterDir, out } = await setup('ci-sigterm', 'win-03');
    // PrepareNode.ps1 takes 10 minutes on the simulator: the build is surely mid-way when the signal comes.
    await withSlowPrepareNode(async () => {
      const child = execa('node', [cli, 'ci', spec, '--cluster-dir', clusterDir, '--out', out], {
        reject: false,
        env: { CI: 'true' },
        // A CI runner waits longer than execa's default 5 s before SIGKILL.
        forceKillAfterDelay: false,
      });
      let seen = '';
      await new Promise<void>((resolve, reject) => {
        child.stdout!.on('data', (chunk: Buffer) => {
          seen += chunk.toString();
          if (/^START prepare-windows/m.test(seen)) resolve();
        });
        child.on('exit', () =>
          reject(new Error(`kubemix ci ended before prepare-windows started:\n${seen}`)),
        );
      });
      child.kill('SIGTERM');
      const run = await child;
      expect(run.exitCode).toBe(130);
      expect(run.stderr).toContain('kubemix ci: SIGTERM: stopping the build; the teardown runs next');
      const summary = await readSummary(out);
      expect([summary.outcome, summary.teardown.status]).toEqual(['interrupted', 'passed']);
      const xml = await validJunit(out);
      expect(cases(xml, 'build')).toContainEqual(['prepare-windows on win-03', 'error']);
      expect(cases(xml, 'teardown').map(([n, s]) => `${n}: ${s}`)).toEqual([
        'cleanup on lab-01: passed',
        'cleanup on lab-02: passed',
        'cleanup on win-03: passed',
      ]);
      await expectLabClean('win-03');
    });
  });

  it('exits 4 (left behind), loudly, when the teardown fails', async () => {
    const { spec, clusterDir, out } = await setup('ci-teardown', 'win-04');
    await writeFile(lab.failuresFile, JSON.stringify({ 'kubeadm.exe reset@win-04': 1 }));
    const run = await kubemix(['ci', spec, '--cluster-dir', clusterDir, '--out', out]);
    expect(run.exitCode).toBe(EXIT.leftBehind);
    expect(run.stderr).toContain(
      '!! TEARDOWN FAILED: cleanup failed on win-04 (step "kubeadm reset"): resources may be left behind',
    );
    expect(run.stderr).toContain(`!! Clean up: kubemix down '${spec}' --cluster-dir '${clusterDir}'`);
    const summary = await readSummary(out);
    expect([summary.outcome, summary.exitCode]).toEqual(['teardown-failed', EXIT.leftBehind]);
    const xml = await readFile(join(out, 'junit.xml'), 'utf8');
    expect(cases(xml, 'teardown')).toContainEqual(['cleanup on win-04', 'failure']);
    expect(cases(xml, 'build').every(([, status]) => status === 'passed')).toBe(true);
    expect(await readFile(join(out, 'report.html'), 'utf8')).toContain(
      'TEARDOWN FAILED: resources may be left behind',
    );
    // What the failed step should have removed is still there, and so is the build's record, so
    // `kubemix down` can finish the job (afterEach does).
    expect(lab.windows.host('win-04').fs.exists('C:\\etc\\kubernetes\\kubelet.conf')).toBe(true);
    expect(existsSync(join(clusterDir, 'state.json'))).toBe(true);
  });

  it('stops the build when the time budget runs out, tears down, and exits 3 (timed out)', async () => {
    const { spec, clusterDir, out } = await setup('ci-timeout', 'win-05');
    // The build cannot finish: PrepareNode.ps1 takes 10 minutes on the simulator.
    await withSlowPrepareNode(async () => {
      const run = await kubemix(['ci', spec, '--cluster-dir', clusterDir, '--out', out, '--timeout', '4s']);
      expect(run.exitCode).toBe(EXIT.timedOut);
      expect(run.stderr).toContain(
        'kubemix ci: the time budget (4s) ran out: stopping the build; the teardown runs next',
      );
      // No resume hint: ci tears down, and the next ci builds from scratch in the same directory
      // (the state records the teardown, which a ci does not refuse).
      expect(run.stderr).not.toContain('run the same command again');
      expect(run.stderr).not.toContain('to go on');
      const state = JSON.parse(await readFile(join(clusterDir, 'state.json'), 'utf8')) as {
        tornDown?: { at: string };
      };
      expect(state.tornDown?.at).toMatch(/^\d{4}-\d\d-\d\dT/);
      const summary = await readSummary(out);
      expect([summary.outcome, summary.teardown.status]).toEqual(['timed-out', 'passed']);
      expect(summary.message).toMatch(/^timed out after 4s/);
      const xml = await validJunit(out);
      expect(xml).toContain('type="timed-out"');
      expect(cases(xml, 'teardown').every(([, status]) => status === 'passed')).toBe(true);
      await expectLabClean('win-05');
    });
  });

  it('keeps a failed cluster with --keep-on-failure, and says how to tear it down', async () => {
    const { spec, clusterDir, out } = await setup('ci-keep', 'win-06');
    await writeFile(lab.failuresFile, JSON.stringify({ 'kubeadm.exe join@win-06': 1 }));
    const run = await kubemix(['ci', spec, '--cluster-dir', clusterDir, '--out', out, '--keep-on-failure']);
    expect(run.exitCode).toBe(1);
    expect(run.stderr).toContain(
      `the cluster is KEPT as asked (--keep-on-failure). Tear it down when done: kubemix down '${spec}' --cluster-dir '${clusterDir}'`,
    );
    expect(run.stdout).not.toContain('tearing down');
    // Kept: the controller still runs the cluster (afterEach tears it down).
    expect((await lab.linux.cluster.nodes()).map((n) => n.metadata.name)).toContain('lab-01');
    const summary = await readSummary(out);
    expect([summary.outcome, summary.teardown.status]).toEqual(['failed', 'kept']);
    const xml = await readFile(join(out, 'junit.xml'), 'utf8');
    expect(cases(xml, 'build')).toContainEqual(['join-windows-workers on win-06', 'failure']);
    expect(cases(xml, 'teardown')).toEqual([
      ['cleanup on lab-01', 'skipped'],
      ['cleanup on lab-02', 'skipped'],
      ['cleanup on win-06', 'skipped'],
      ['teardown', 'skipped'],
    ]);
  });

  it('refuses bad input with exit 2 and creates nothing', async () => {
    const { spec, clusterDir, out } = await setup('ci-bad-input', 'win-01');
    current = undefined;
    const badTimeout = await kubemix([
      'ci',
      spec,
      '--cluster-dir',
      clusterDir,
      '--out',
      out,
      '--timeout',
      '90',
    ]);
    expect([badTimeout.exitCode, badTimeout.stderr.trim()]).toEqual([
      2,
      '--timeout must be a duration such as 90m, 1h30m or 45s, got "90"',
    ]);
    await mkdir(out);
    await writeFile(join(out, 'old.txt'), 'x');
    const notEmpty = await kubemix(['ci', spec, '--cluster-dir', clusterDir, '--out', out]);
    expect(notEmpty.exitCode).toBe(2);
    expect(notEmpty.stderr).toContain(`--out ${out} is not empty`);
    expect(await readdir(out)).toEqual(['old.txt']);
    // A credential reference that does not resolve: bad input before anything is created, not a
    // failed build followed by a teardown that cannot log in either.
    const fresh = join(out, 'fresh');
    const noPassword = await kubemix(['ci', spec, '--cluster-dir', clusterDir, '--out', fresh], {
      [lab.passwordEnv]: '',
    });
    // One line per group of hosts using it, naming the spec field (src/plan/credential-check.ts).
    expect(noPassword.exitCode, noPassword.stderr).toBe(2);
    const lines = noPassword.stderr.trim().split('\n');
    expect(lines.length).toBeGreaterThan(0);
    for (const line of lines)
      expect(line).toMatch(
        new RegExp(
          `^hosts? [\\w-]+(, [\\w-]+)*: nodes\\.workers\\.\\d+\\.credentials\\.password: environment variable ${lab.passwordEnv} is empty$`,
        ),
      );
    expect(existsSync(fresh)).toBe(false);
    expect(existsSync(clusterDir)).toBe(false);
  });
});
