import { describe, expect, it } from 'vitest';
import type { ClusterState } from '../../fixtures/lab/cluster-state.js';
import { rolloutMessage, rolloutStatuses } from '../../fixtures/lab/standins/tools/kubectl-rollout.js';
import { applied, beforeTheFix, flannelCluster as cluster, flannel } from './flannel-helpers.js';

// Issue 19 item 7: flannel's install-cni runs /opt/bin/install-conf from the flannel image, and
// flanneld's pod is Ready only when its readiness probe (/readyz) passes, i.e. once it holds its
// lease, so `kubectl rollout status` no longer reports a DaemonSet whose flanneld has none as done
// (fixtures/lab/state/linux-flannel.ts, linux-init-containers.ts, flanneld-health.ts,
// controller-status.ts; standins/tools/kubectl-rollout.ts).

/** flannel's pod on w1: phase, Ready, the container's waiting reason, and its events. */
async function flannelPod(state: ClusterState) {
  const pod = (await state.pods('kube-flannel')).find(
    (p) => (p['spec'] as { nodeName?: string }).nodeName === 'w1',
  )!;
  const status = pod['status'] as {
    phase: string;
    conditions: { type: string; status: string }[];
    containerStatuses: { state: { waiting?: { reason: string } } }[];
  };
  const events = (await state.events('kube-flannel'))
    .filter((e) => e.object === `pod/${pod.metadata.name}`)
    .map((e) => `${e.reason}: ${e.message}`);
  return {
    phase: status.phase,
    ready: status.conditions.find((c) => c.type === 'Ready')?.status,
    waiting: status.containerStatuses[0]?.state.waiting?.reason,
    events,
  };
}

const nodeReady = async (state: ClusterState, name: string) =>
  (
    (await state.getObject('Node', undefined, name))!['status'] as {
      conditions: { type: string; status: string }[];
    }
  ).conditions.find((c) => c.type === 'Ready')?.status;

/** What `kubectl rollout status ds/kube-flannel-ds` sees now: each status version's message, and whether one is done. */
async function rollout(state: ClusterState) {
  const ds = (await state.getObject('DaemonSet', 'kube-flannel', 'kube-flannel-ds'))!;
  const viewed = (await rolloutStatuses(state, ds)).map((s) => rolloutMessage(ds, s));
  return { done: viewed.some((v) => v.done), messages: viewed.map((v) => v.message) };
}

describe("install-cni runs flannel's /opt/bin/install-conf", () => {
  it('from the pinned flannel image it installs the CNI config: both nodes turn Ready', async () => {
    const state = await applied(await cluster(), flannel());
    expect([await nodeReady(state, 'cp1'), await nodeReady(state, 'w1')]).toEqual(['True', 'True']);
    expect((await flannelPod(state)).events).toEqual([]);
  });

  it('a flannel image before v0.28.6 has no install-conf: the init container cannot start, the node stays NotReady', async () => {
    const state = await applied(
      await cluster(),
      flannel((spec) => {
        spec.initContainers[1]!['image'] = 'ghcr.io/flannel-io/flannel:v0.28.5';
      }),
    );
    expect(await nodeReady(state, 'w1')).toBe('False');
    expect((await flannelPod(state)).events.join('\n')).toContain(
      'exec: "/opt/bin/install-conf": stat /opt/bin/install-conf: no such file or directory',
    );
  });

  it('install-conf takes exactly a source and a destination', async () => {
    const state = await applied(
      await cluster(),
      flannel((spec) => {
        spec.initContainers[1]!.args = [
          '-f',
          '/etc/kube-flannel/cni-conf.json',
          '/etc/cni/net.d/10-flannel.conflist',
        ];
      }),
    );
    expect((await flannelPod(state)).events.join('\n')).toContain(
      'usage: /opt/bin/install-conf <src> <dest>',
    );
    expect(await nodeReady(state, 'w1')).toBe('False');
  });

  it('an init container running a program the lab does not simulate fails instead of passing', async () => {
    const state = await applied(
      await cluster(),
      flannel((spec) => {
        spec.initContainers[1]!.command = ['sh', '-c'];
        spec.initContainers[1]!.args = [
          'cat /etc/kube-flannel/cni-conf.json > /etc/cni/net.d/10-flannel.conflist',
        ];
      }),
    );
    expect((await flannelPod(state)).events.join('\n')).toContain(
      'kubemix lab: not simulated: init container "install-cni" runs "sh"',
    );
    expect(await nodeReady(state, 'w1')).toBe('False');
  });
});

describe('flanneld is Ready only once it holds its lease', () => {
  it('with its lease the pod is Ready and the rollout is done', async () => {
    const state = await applied(await cluster(), flannel());
    expect(await flannelPod(state)).toMatchObject({ phase: 'Running', ready: 'True', events: [] });
    expect(await rollout(state)).toMatchObject({ done: true });
  });

  it('without a lease, the manifest before this fix rolls out; kubemix manifest does not', async () => {
    // No pod subnet: no node gets a pod CIDR, flanneld cannot acquire a lease and exits.
    const before = await applied(await cluster(''), beforeTheFix());
    const pod = await flannelPod(before);
    expect(pod.events.join('\n')).toContain('failed to acquire lease: node "w1" pod cidr not assigned');
    expect(pod.ready).toBe('False');
    // Yet the watch saw every pod Ready for the moment flanneld ran without a readiness probe.
    expect(await rollout(before)).toEqual({
      done: true,
      messages: ['daemon set "kube-flannel-ds" successfully rolled out\n', expect.any(String)],
    });

    const after = await applied(await cluster(''), flannel());
    expect((await flannelPod(after)).ready).toBe('False');
    expect(await rollout(after)).toEqual({
      done: false,
      messages: [
        'Waiting for daemon set "kube-flannel-ds" rollout to finish: 0 of 2 updated pods are available...\n',
        'Waiting for daemon set "kube-flannel-ds" rollout to finish: 0 of 2 updated pods are available...\n',
      ],
    });
  });

  it('flanneld waiting for etcd (no --kube-subnet-mgr) runs but is never Ready: /readyz answers 503', async () => {
    const state = await applied(
      await cluster(),
      flannel((spec) => {
        spec.containers[0]!.args = ['--ip-masq', '--healthz-port=8081', '--iface=$(NODE_IP)'];
      }),
    );
    expect(await flannelPod(state)).toEqual({
      phase: 'Running',
      ready: 'False',
      waiting: undefined,
      events: ['Unhealthy: Readiness probe failed: HTTP probe failed with statuscode: 503'],
    });
    expect((await rollout(state)).done).toBe(false);
  });

  it('a readiness probe on another port than --healthz-port finds nothing listening', async () => {
    const state = await applied(
      await cluster(),
      flannel((spec) => {
        spec.containers[0]!.args = [
          '--ip-masq',
          '--kube-subnet-mgr',
          '--healthz-port=8082',
          '--iface=$(NODE_IP)',
        ];
      }),
    );
    expect((await flannelPod(state)).events).toEqual([
      'Unhealthy: Readiness probe failed: Get "http://10.233.1.3:8081/readyz": dial tcp 10.233.1.3:8081: connect: connection refused',
      'Unhealthy: Liveness probe failed: Get "http://10.233.1.3:8081/healthz": dial tcp 10.233.1.3:8081: connect: connection refused',
    ]);
    expect((await flannelPod(state)).waiting).toBe('CrashLoopBackOff');
  });

  it('flannel v0.28.8 serves no /readyz: its pod is never Ready', async () => {
    const state = await applied(
      await cluster(),
      flannel((spec) => {
        spec.containers[0]!['image'] = 'ghcr.io/flannel-io/flannel:v0.28.8';
      }),
    );
    expect(await flannelPod(state)).toMatchObject({
      ready: 'False',
      events: ['Unhealthy: Readiness probe failed: HTTP probe failed with statuscode: 404'],
    });
  });

  it('a liveness probe on a path flanneld does not serve restarts it; its lease still serves the pods', async () => {
    const state = await applied(
      await cluster(),
      flannel((spec) => {
        (spec.containers[0]!['livenessProbe'] as { httpGet: { path: string } }).httpGet.path = '/livez';
      }),
    );
    expect(await flannelPod(state)).toMatchObject({
      phase: 'Running',
      ready: 'False',
      waiting: 'CrashLoopBackOff',
      events: ['Unhealthy: Liveness probe failed: HTTP probe failed with statuscode: 404'],
    });
  });

  it('a flag flanneld does not define makes it exit before anything else', async () => {
    const state = await applied(
      await cluster(),
      flannel((spec) => {
        spec.containers[0]!.args = [
          '--ip-masq',
          '--kube-subnet-mgr',
          '--healthz-prot=8081',
          '--iface=$(NODE_IP)',
        ];
      }),
    );
    const pod = await flannelPod(state);
    expect(pod.waiting).toBe('CrashLoopBackOff');
    expect(pod.events.join('\n')).toContain('flag provided but not defined: -healthz-prot');
  });
});
