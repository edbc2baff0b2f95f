import { describe, expect, it } from 'vitest';
import {
  CHECK_NAMES,
  type CheckResult,
  checksToJson,
  formatCheckTable,
  missingChecks,
  parseCheckResults,
} from '../../src/verify/checks.js';

const line = (check: string, ok: boolean, detail: string, command = `cmd ${check}`) =>
  JSON.stringify({ check, ok, detail, command });

describe('parseCheckResults', () => {
  it('reads the check_* outputs in the Windows guide order and ignores other outputs', () => {
    const results = parseCheckResults({
      check_outbound: line('outbound', true, 'HTTP 200'),
      join_command: 'kubeadm join ...',
      check_node_to_pod: line(
        'node-to-pod',
        false,
        'curl: (28) Connection timed out after 10000 milliseconds',
      ),
      check_pod_to_pod: line('pod-to-pod', true, '10.244.1.3: HTTP 200'),
      flannel_apply: 'configmap/kube-flannel-cfg created',
    });
    expect(results).toEqual([
      {
        check: 'node-to-pod',
        ok: false,
        detail: 'curl: (28) Connection timed out after 10000 milliseconds',
        command: 'cmd node-to-pod',
      },
      { check: 'pod-to-pod', ok: true, detail: '10.244.1.3: HTTP 200', command: 'cmd pod-to-pod' },
      { check: 'outbound', ok: true, detail: 'HTTP 200', command: 'cmd outbound' },
    ]);
  });

  it('takes the last JSON line of the stdout, and register results with stdout', () => {
    const results = parseCheckResults({
      check_nodeport: `Warning: something on stderr went to stdout\n${line('nodeport', true, 'x')}\n`,
      check_service_vip: { stdout: line('service-vip', true, 'y'), rc: 0 },
      check_service_dns: { check: 'service-dns', ok: false, detail: 'z', command: 'c' },
    });
    expect(results.map((r) => [r.check, r.ok, r.detail])).toEqual([
      ['service-vip', true, 'y'],
      ['service-dns', false, 'z'],
      ['nodeport', true, 'x'],
    ]);
  });

  it('turns malformed outputs into failed results naming the output', () => {
    const results = parseCheckResults({
      check_node_to_pod: 'not json at all',
      check_pod_to_pod: '{"check": "pod-to-pod", "ok": "yes"}',
      check_outbound: '{"check": ',
      check_service_vip: 42,
    });
    expect(results).toEqual([
      {
        check: 'node-to-pod',
        ok: false,
        detail: 'unreadable output in outputs.check_node_to_pod: no JSON line',
        command: '',
      },
      {
        check: 'pod-to-pod',
        ok: false,
        detail: 'unreadable output in outputs.check_pod_to_pod: "ok" is not true or false',
        command: '',
      },
      {
        check: 'service-vip',
        ok: false,
        detail: 'unreadable output in outputs.check_service_vip: no JSON line',
        command: '',
      },
      expect.objectContaining({ check: 'outbound', ok: false }),
    ]);
    expect(results[3]!.detail).toMatch(/^unreadable output in outputs\.check_outbound: .*JSON/);
  });

  it('keeps checks it does not know, after the known ones, by name', () => {
    const results = parseCheckResults({
      check_zeta: line('zeta', true, ''),
      check_alpha: line('alpha', true, ''),
      check_outbound: line('outbound', true, ''),
    });
    expect(results.map((r) => r.check)).toEqual(['outbound', 'alpha', 'zeta']);
  });
});

const sample: CheckResult[] = [
  { check: 'node-to-pod', ok: true, detail: '10.244.1.2: HTTP 200; 10.244.1.3: HTTP 200', command: 'curl' },
  {
    check: 'service-dns',
    ok: false,
    detail:
      "Invoke-WebRequest : The remote name could not be resolved:\n  'win-webserver.default.svc.cluster.local'",
    command: 'kubectl exec',
  },
];

describe('formatCheckTable', () => {
  it('pads the columns and keeps each detail on one line', () => {
    expect(formatCheckTable(sample)).toBe(
      [
        'CHECK        OK      DETAIL',
        'node-to-pod  ok      10.244.1.2: HTTP 200; 10.244.1.3: HTTP 200',
        "service-dns  FAILED  Invoke-WebRequest : The remote name could not be resolved: 'win-webserver.default.svc.cluster.local'",
        '',
      ].join('\n'),
    );
  });

  it('cuts long details and prints only the header for no results', () => {
    const table = formatCheckTable(sample, { maxDetail: 20 });
    expect(table.split('\n')[2]).toBe('service-dns  FAILED  Invoke-WebRequest...');
    expect(formatCheckTable([])).toBe('CHECK  OK  DETAIL\n');
  });
});

describe('checksToJson', () => {
  it('summarises failed and missing checks', () => {
    const doc = JSON.parse(checksToJson(sample)) as Record<string, unknown>;
    expect(doc).toEqual({
      ok: false,
      passed: 1,
      failed: ['service-dns'],
      missing: ['pod-to-pod', 'service-vip', 'nodeport', 'outbound'],
      checks: sample,
    });
  });

  it('is ok only when all six checks passed', () => {
    const all = CHECK_NAMES.map((check) => ({ check, ok: true, detail: '', command: '' }));
    expect(JSON.parse(checksToJson(all))).toMatchObject({ ok: true, passed: 6, failed: [], missing: [] });
    expect(missingChecks(all)).toEqual([]);
  });
});
