import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { guestSsh } from '../../fixtures/libvirt/lab.js';
import { type HostPipeline, hostPipeline } from './host-pipeline.js';
import { events } from './libvirt-boot.js';
import { withRealBenchCluster } from './real-cluster-bench.js';

const CONTROLLERS = 3;

/** What the HA build took and what the real cluster said afterwards. */
export interface RealHaRun {
  /** `up` to the Linux worker joined; undefined when it failed (then `failure` says why). */
  upMs?: number;
  /** Task durations of `up` from its event log, in the order they ended. */
  tasksMs: Record<string, number>;
  /** What the barrier between wait-for-hosts and prepare-linux cost (host-pipeline.ts). */
  pipeline?: HostPipeline;
  verifyMs?: number;
  /** verify's checks and whether each passed. */
  checks: Record<string, boolean>;
  downMs?: number;
  /** Node name -> Ready, as the API server lists the nodes after `up`. */
  nodesReady: Record<string, boolean>;
  /** etcd's members as `etcdctl member list` prints them on the first controller. */
  etcdMembers: string[];
  /** The API server pods the cluster runs (one per controller when the join worked). */
  apiServerPods: number;
  /** What libvirt and the storage still held after `down` (nothing, when it worked). */
  leftovers: string[];
  failure?: string;
}

/**
 * #23's highly available control plane, for real and once per `npm run bench -- real-ha` (it takes
 * the machine for the better part of an hour, so the default bench leaves it out): `kubemix up` of
 * three controllers and one Linux worker on real libvirtd/QEMU guests (TCG), offline from the real
 * release scripts/release/ builds. The first controller runs `kubeadm init --upload-certs`, the
 * other two join as control planes with the certificate key, one at a time
 * (playbooks/cluster/init-control-plane.yml); the worker joins through the first controller's
 * address. Then `kubemix verify`, the Node objects and etcd's member list from the real cluster,
 * and `down`, which must leave nothing. Sizes as the real-cluster test's (real-cluster-bench.ts).
 */
export async function libvirtRealHaBench(): Promise<RealHaRun> {
  return withRealBenchCluster('kmxha', CONTROLLERS, async (real) => {
    const { cluster, clusterDir, kubemix } = real;
    const result: RealHaRun = {
      tasksMs: {},
      checks: {},
      nodesReady: {},
      etcdMembers: [],
      apiServerPods: 0,
      leftovers: [],
    };
    let started = performance.now();
    const up = await kubemix('up', '--stop-after', 'join-linux-workers');
    const upEvents = await events(clusterDir);
    for (const e of upEvents) if (e.type === 'task-end') result.tasksMs[e.task] = e.durationMs;
    const pipeline = hostPipeline(upEvents, 'wait-for-hosts', 'prepare-linux');
    if (pipeline) result.pipeline = pipeline;
    if (up.exitCode !== 0) {
      result.failure = `kubemix up failed:\n${String(up.stdout).slice(-3000)}\n${String(up.stderr).slice(-1000)}`;
      return result;
    }
    result.upMs = performance.now() - started;
    const onController = (command: string) => guestSsh(clusterDir, cluster.guest(0), command);
    const nodes = await onController('kubectl --kubeconfig /etc/kubernetes/admin.conf get nodes -o json');
    for (const node of JSON.parse(nodes.stdout || '{"items":[]}').items as Array<{
      metadata: { name: string };
      status: { conditions: Array<{ type: string; status: string }> };
    }>)
      result.nodesReady[node.metadata.name] =
        node.status.conditions.find((c) => c.type === 'Ready')?.status === 'True';
    const pods = await onController(
      'kubectl --kubeconfig /etc/kubernetes/admin.conf -n kube-system get pods -l component=kube-apiserver -o name',
    );
    result.apiServerPods = pods.stdout.split('\n').filter((l) => l.startsWith('pod/')).length;
    // etcdctl is not on the node: the etcd container's own, with the certificates kubeadm made.
    const members = await onController(
      'crictl --runtime-endpoint unix:///run/containerd/containerd.sock exec $(crictl --runtime-endpoint unix:///run/containerd/containerd.sock ps -q --name "^etcd$") etcdctl --endpoints https://127.0.0.1:2379 --cacert /etc/kubernetes/pki/etcd/ca.crt --cert /etc/kubernetes/pki/etcd/healthcheck-client.crt --key /etc/kubernetes/pki/etcd/healthcheck-client.key member list',
    );
    result.etcdMembers = members.stdout.split('\n').filter((l) => l.trim() !== '');
    started = performance.now();
    const verify = await kubemix('verify');
    result.verifyMs = performance.now() - started;
    const report = await readFile(join(clusterDir, 'verify.json'), 'utf8')
      .then((text) => JSON.parse(text) as { checks: Array<{ check: string; ok: boolean }> })
      .catch(() => ({ checks: [] }));
    for (const check of report.checks) result.checks[check.check] = check.ok;
    if (verify.exitCode !== 0)
      result.failure = `kubemix verify failed:\n${String(verify.stdout).slice(-2000)}`;
    const { failure, ...down } = await real.down();
    Object.assign(result, down);
    if (failure) result.failure = failure;
    return result;
  });
}
