import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { writeLabSpec } from '../../fixtures/cluster-lab/lab-spec.js';
import { type ClusterLab, startClusterLab } from '../../fixtures/lab/cluster-lab.js';
import type { KubeObject } from '../../fixtures/lab/cluster-state.js';
import type { CiSummary } from '../../src/ci/summary-types.js';
import { validateJunit } from '../ci/helpers.js';
import { kubemix, tempClusterDir } from './helpers.js';

// verify on Linux-only clusters (issue #19 item 4): without Windows workers verify deploys only the
// Linux workload (agnhost netexec) and runs the six checks across the Linux nodes; `kubemix ci` on
// such a cluster is green. Lab hosts: real sshd, Kubernetes stand-ins (fixtures/lab).
let lab: ClusterLab;
/** The cluster of the test running now, torn down after it even when the test failed. */
let current: { spec: string; clusterDir: string } | undefined;

const CHECKS = ['node-to-pod', 'pod-to-pod', 'service-vip', 'service-dns', 'nodeport', 'outbound'];

beforeAll(async () => {
  lab = await startClusterLab({ count: 2 });
});

afterEach(async () => {
  if (current && existsSync(join(current.clusterDir, 'state.json')) && (await lab.cluster.cluster()))
    await kubemix(['down', current.spec, '--cluster-dir', current.clusterDir]);
  current = undefined;
});

afterAll(async () => {
  await lab?.stop();
});

/** A spec of `hosts` lab hosts: the first is the controller, the others Linux workers. */
async function linuxSpec(name: string, hosts: number) {
  const dir = await tempClusterDir();
  const spec = await writeLabSpec(dir, {
    name,
    linuxHosts: lab.hosts.slice(0, hosts),
    controllers: 1,
    knownHostsPath: lab.knownHostsPath,
    privateKeyPath: lab.privateKeyPath,
  });
  current = { spec, clusterDir: join(dir, 'cluster') };
  return { ...current, dir };
}

interface VerifyReport {
  ok: boolean;
  passed: number;
  checks: { check: string; ok: boolean; detail: string }[];
}

const readReport = async (clusterDir: string) =>
  JSON.parse(await readFile(join(clusterDir, 'verify.json'), 'utf8')) as VerifyReport;

/** `name node` of the default namespace's pods whose name starts with `prefix-`. */
async function podsOf(prefix: string): Promise<string[]> {
  const nodeOf = (p: KubeObject) => (p['spec'] as { nodeName?: string }).nodeName;
  return (await lab.cluster.pods('default'))
    .filter((p) => p.metadata.name.startsWith(`${prefix}-`))
    .map((p) => `${p.metadata.name} ${nodeOf(p)}`);
}

/** The workload objects kubemix applied in the default namespace (`Kind name`). */
async function defaultObjects(): Promise<string[]> {
  const kinds = ['DaemonSet', 'Deployment', 'Service'];
  const lists = await Promise.all(kinds.map((k) => lab.cluster.listObjects(k, 'default')));
  return lists
    .flat()
    .filter((o) => o.metadata.name !== 'kubernetes')
    .map((o) => `${o.kind} ${o.metadata.name}`)
    .sort();
}

describe('verify on a Linux-only cluster', () => {
  it('1 controller + 1 Linux worker: up --stop-after verify passes all six checks on the worker', async () => {
    const { spec, clusterDir } = await linuxSpec('linux-verify-1-1', 2);
    const up = await kubemix(['up', spec, '--cluster-dir', clusterDir, '--stop-after', 'verify']);
    expect(up.stderr).toBe('');
    expect(up.exitCode).toBe(0);
    expect(up.stdout).toContain('DONE  verify');
    const report = await readReport(clusterDir);
    expect(report.checks.map((c) => [c.check, c.ok])).toEqual(CHECKS.map((c) => [c, true]));
    expect(report.ok).toBe(true);

    // Nothing Windows was deployed; the netexec endpoint runs on the worker only (kubeadm's
    // control-plane taint keeps it off lab-01), and the checks name the pods they reached.
    expect(await defaultObjects()).toEqual([
      'DaemonSet linux-netexec',
      'Deployment linux-netexec-client',
      'Service linux-netexec',
    ]);
    const [endpoint] = await podsOf('linux-netexec');
    const endpoints = (await podsOf('linux-netexec')).filter((p) => !p.startsWith('linux-netexec-client-'));
    expect(endpoints.map((p) => p.split(' ')[1])).toEqual(['lab-02']);
    const name = endpoint!.split(' ')[0]!;
    const detail = (check: string) => report.checks.find((c) => c.check === check)!.detail;
    expect(detail('node-to-pod')).toContain(`${name} on lab-02 (`);
    expect(detail('pod-to-pod')).toMatch(new RegExp(`-> ${name} on lab-02 \\(\\S+\\): hostname ${name}$`));
    expect(detail('service-dns')).toContain(
      `-> linux-netexec.default.svc.cluster.local:80: hostname ${name}`,
    );
    expect(detail('nodeport')).toMatch(
      /^linux-netexec lab-01 \S+: hostname \S+; linux-netexec lab-02 \S+: hostname \S+$/,
    );
    expect(detail('outbound')).toMatch(/-> www\.microsoft\.com:443: connected$/);
  });

  it('1 controller and no worker: the workload runs on the controller, all six checks pass', async () => {
    const { spec, clusterDir } = await linuxSpec('linux-verify-1-0', 1);
    const up = await kubemix(['up', spec, '--cluster-dir', clusterDir, '--stop-after', 'verify']);
    expect(up.stderr).toBe('');
    expect(up.exitCode).toBe(0);
    const report = await readReport(clusterDir);
    expect(report.checks.map((c) => [c.check, c.ok])).toEqual(CHECKS.map((c) => [c, true]));
    expect((await podsOf('linux-netexec')).map((p) => p.split(' ')[1])).toEqual(['lab-01', 'lab-01']);
  });

  it('kubemix ci on a Linux-only cluster is green: six passed check cases, torn down', async () => {
    const { spec, clusterDir, dir } = await linuxSpec('linux-ci', 2);
    const out = join(dir, 'out');
    const run = await kubemix(['ci', spec, '--cluster-dir', clusterDir, '--out', out]);
    expect(run.stderr).toBe('');
    expect(run.exitCode).toBe(0);
    expect(run.stdout).toContain('kubemix ci: PASSED');
    const xml = await readFile(join(out, 'junit.xml'), 'utf8');
    expect((await validateJunit(xml)).output).toContain('validates');
    const checks = [...xml.matchAll(/<testcase name="(check [^"]+)"[^>]*?(\/>|>\s*<(\w+))/g)].map((m) => [
      m[1],
      m[3] ?? 'passed',
    ]);
    expect(checks).toEqual(CHECKS.map((c) => [`check ${c}`, 'passed']));
    // The teardown ran on the two Linux nodes, and the report was written without a Windows host.
    expect([...xml.matchAll(/<testcase name="(cleanup on [^"]+)"/g)].map((m) => m[1])).toEqual([
      'cleanup on lab-01',
      'cleanup on lab-02',
    ]);
    const summary = JSON.parse(await readFile(join(out, 'summary.json'), 'utf8')) as CiSummary;
    expect(summary.teardown.status).toBe('passed');
    expect(summary.verify.checks.map((c) => [c.check, c.status])).toEqual(CHECKS.map((c) => [c, 'passed']));
    expect(existsSync(join(out, 'report.html'))).toBe(true);
    expect(await lab.cluster.nodes()).toEqual([]);
  });
});
