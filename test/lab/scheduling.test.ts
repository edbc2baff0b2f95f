import { describe, expect, it } from 'vitest';
import {
  failedSchedulingMessage,
  type SchedulableNode,
  unfitReason,
  untoleratedTaintReason,
} from '../../fixtures/lab/state/scheduling.js';

// The lab's scheduler words, as test/release/scheduler-agreement.integration.test.ts found the real
// kube-scheduler says them (the sources are cited in fixtures/lab/state/scheduling.ts).

const CONTROLLER: SchedulableNode = {
  name: 'cp1',
  labels: { 'kubernetes.io/os': 'linux' },
  taints: [{ key: 'node-role.kubernetes.io/control-plane', effect: 'NoSchedule' }],
};
const WINDOWS_POD = { nodeSelector: { 'kubernetes.io/os': 'windows' } };

describe("the lab scheduler's reasons", () => {
  it('names the untolerated taint before v1.35 and keeps it out of the pod status from v1.35 on', () => {
    const taint = { key: 'os', value: 'windows', effect: 'NoSchedule' as const };
    expect(untoleratedTaintReason(taint, '1.31.2')).toBe('node(s) had untolerated taint {os: windows}');
    expect(untoleratedTaintReason(taint, 'v1.34.1')).toBe('node(s) had untolerated taint {os: windows}');
    expect(untoleratedTaintReason(taint, '1.35.0')).toBe('node(s) had untolerated taint(s)');
    expect(untoleratedTaintReason(taint, '1.37.2')).toBe('node(s) had untolerated taint(s)');
    expect(untoleratedTaintReason(taint)).toBe('node(s) had untolerated taint(s)');
  });

  it('reports the taint of a node whose labels do not match either: TaintToleration filters first', () => {
    expect(unfitReason(WINDOWS_POD, CONTROLLER, '1.31.2')).toBe(
      'node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }',
    );
    expect(unfitReason({ ...WINDOWS_POD, tolerations: [{ operator: 'Exists' }] }, CONTROLLER)).toBe(
      "node(s) didn't match Pod's node affinity/selector",
    );
  });

  it('sorts the summary as strings, count first, as FitError does', () => {
    const selector = "node(s) didn't match Pod's node affinity/selector";
    const taint = 'node(s) had untolerated taint(s)';
    expect(failedSchedulingMessage(4, [selector, selector, selector, taint])).toBe(
      "0/4 nodes are available: 1 node(s) had untolerated taint(s), 3 node(s) didn't match Pod's node affinity/selector. preemption: 0/4 nodes are available: 4 Preemption is not helpful for scheduling.",
    );
  });
});
