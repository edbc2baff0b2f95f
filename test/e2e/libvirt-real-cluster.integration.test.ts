import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { flannelSubnetEnv } from '../../fixtures/lab/state/footprint.js';
import { guestSsh } from '../../fixtures/libvirt/lab.js';
import { builtRelease } from '../../fixtures/release/built-release.js';
import { type kubemix, taskTimes } from './helpers.js';
import { OfflineLibvirtCluster, REAL_CLUSTER_GUESTS } from './offline-libvirt-cluster.js';

// A real Kubernetes cluster, built by kubemix as users run it: the libvirt provider on real
// libvirtd/QEMU guests (TCG), offline from an artifacts directory that holds the REAL release
// scripts/release/ built from the Go module proxy (kubelet, kubeadm, kubectl, the CNI plugins and
// crictl as pkgs.k8s.io-shaped packages; the control plane, etcd, CoreDNS, kube-proxy, pause,
// flannel and agnhost as container images: fixtures/release/). Real containerd (Debian's 2.1.9
// build) under systemd, real `kubeadm init` and `join`, real kubelet, flannel VXLAN between the two
// guests, CoreDNS and kube-proxy. What the test asserts comes from the real cluster: the API's
// Node objects, flannel's annotations, the guests' links, and kubemix verify's checks.
//
// The `real` tier (test/vitest.config.ts): the last of a whole run, alone, because its emulated
// controller needs both of this machine's cores. Under TCG the whole file took 21 minutes on an
// idle machine (each `up` about 8.2, verify 0.7, building the test image about 4) and 26 to 37 in
// CI runs. What the real cluster taught kubemix on the way:
// kubeadm's API-call and TLS-bootstrap timeouts and the control plane's leader election sized for
// emulation, ECDSA keys and relaxed control-plane probes (kubeadm-config.yaml.j2), flanneld's
// iptables check once a minute and its own way to the API server, not through a ClusterIP that
// kube-proxy has not programmed yet (kube-flannel.yaml.j2), a worker's Node waited for before `kubectl
// wait` (join-linux-workers.yml), and kubeadm's own errors in kubemix's output (its token and
// certificate key withheld instead of no_log). The worker has 1 vCPU so that the controller keeps
// most of the machine.
const lab = new OfflineLibvirtCluster('kmxreal');
let upResult: Awaited<ReturnType<typeof kubemix>>;
/** What the nodes said when `up` failed (kubemix's own output has kubeadm's, not the kubelet's). */
let diagnostics = '';

const nodes = () => [lab.guest(0), lab.guest(1)];

/** The kubelet's and containerd's last words and the containers of each node, for a failed build. */
async function nodeDiagnostics(): Promise<string> {
  const parts: string[] = [];
  for (const address of nodes()) {
    const said = await guestSsh(
      lab.clusterDir,
      address,
      [
        'ls /etc/kubernetes; cat /var/lib/kubelet/kubeadm-flags.env',
        'crictl --runtime-endpoint unix:///run/containerd/containerd.sock ps -a 2>&1 | tail -n +2 | head -20',
        'for c in $(crictl --runtime-endpoint unix:///run/containerd/containerd.sock ps -aq 2>/dev/null); do echo "# $c"; crictl --runtime-endpoint unix:///run/containerd/containerd.sock logs --tail 8 "$c" 2>&1; done',
        "kubectl --kubeconfig /etc/kubernetes/admin.conf get --raw '/readyz?verbose' 2>&1 | tail -8",
        'journalctl -u kubelet --no-pager 2>&1 | grep -v "mirror pod" | grep -E "^.{16}.*(E[0-9]{4}|W[0-9]{4}|register)" | tail -20',
        'journalctl -u containerd --no-pager 2>&1 | grep -E "level=error" | tail -8',
      ].join('; echo ---; '),
    ).catch((error: Error) => ({ stdout: '', stderr: error.message }));
    parts.push(`== ${address}\n${said.stdout}\n${said.stderr}`);
  }
  return parts.join('\n');
}

/** `up` to the Linux worker joined, with the nodes' diagnostics when it fails. */
async function up(): Promise<void> {
  diagnostics = '';
  upResult = await lab.run('up', '--stop-after', 'join-linux-workers');
  // Each task's time in the run's output: where an emulated build's minutes went, when a CI run
  // takes longer than the last (kubemix's line log: 'DONE  <task> (<time>)').
  console.log(taskTimes(upResult.stdout));
  if (upResult.exitCode !== 0) diagnostics = await nodeDiagnostics();
  else console.log(await flannelTimeline());
}

/**
 * When flannel's pods got to each step, as the real cluster recorded it: install-flannel's minutes
 * are mostly its rollout wait, and this says which part (image, init containers, flanneld's start,
 * its readiness) took them on the emulated guests. Printed, not asserted: timings stay out of
 * pass/fail tests.
 */
async function flannelTimeline(): Promise<string> {
  const pods = await kubectl(
    `-n kube-flannel get pods -o jsonpath='{range .items[*]}{.metadata.name} on {.spec.nodeName}: created {.metadata.creationTimestamp}; init {range .status.initContainerStatuses[*]}{.name} {.state.terminated.startedAt}..{.state.terminated.finishedAt} {end}; started {.status.containerStatuses[0].state.running.startedAt}; ready {.status.conditions[?(@.type=="Ready")].lastTransitionTime}{"\\n"}{end}'`,
  );
  const events = await kubectl(
    '-n kube-flannel get events --sort-by=.lastTimestamp -o custom-columns=LAST:.lastTimestamp,OBJECT:.involvedObject.name,REASON:.reason,MESSAGE:.message --no-headers',
  );
  const nodes = await kubectl(
    `get nodes -o jsonpath='{range .items[*]}{.metadata.name} Ready since {.status.conditions[?(@.type=="Ready")].lastTransitionTime}{"\\n"}{end}'`,
  );
  // flanneld exited once on the controller in a CI run (BackOff 45 s after its start): its last words.
  const previous = await kubectl(
    `-n kube-flannel get pods -o name | while read -r pod; do echo "$pod:"; kubectl --kubeconfig /etc/kubernetes/admin.conf -n kube-flannel logs "$pod" -c kube-flannel --previous --tail=25 2>&1; done`,
  );
  return [
    '== flannel timeline',
    pods.stdout,
    events.stdout,
    nodes.stdout,
    '== flanneld before a restart',
    previous.stdout,
    pods.stderr,
    events.stderr,
  ].join('\n');
}

const kubectl = (args: string) =>
  guestSsh(lab.clusterDir, lab.controller, `kubectl --kubeconfig /etc/kubernetes/admin.conf ${args}`);

interface NodeObject {
  metadata: { name: string; uid: string; annotations: Record<string, string> };
  spec: { podCIDR?: string };
  status: { conditions: Array<{ type: string; status: string }>; nodeInfo: { kubeletVersion: string } };
}

/** The cluster's Node objects as the API server lists them. */
async function nodeObjects(): Promise<NodeObject[]> {
  const got = await kubectl('get nodes -o json');
  // A run once saw the API server refuse connections right after a green `up`: what the nodes said.
  if (got.exitCode !== 0) throw new Error(`kubectl get nodes: ${got.stderr}\n${await nodeDiagnostics()}`);
  return JSON.parse(got.stdout).items as NodeObject[];
}

/** Both nodes listed and Ready, as the API server says. */
function expectBothReady(listed: NodeObject[]): void {
  expect(listed.map((n) => n.metadata.name).sort()).toEqual(['controller-01', 'linux-01']);
  for (const node of listed)
    expect(node.status.conditions.find((c) => c.type === 'Ready')?.status, node.metadata.name).toBe('True');
}

beforeAll(async () => {
  await lab.start(REAL_CLUSTER_GUESTS, builtRelease());
  await up();
}, 45 * 60_000);

afterAll(() => lab.stop(), 10 * 60_000);

describe('a real Kubernetes cluster on QEMU guests, built offline by kubemix', () => {
  it('runs up to the Linux worker joined', () => {
    expect(upResult.exitCode, `${upResult.stdout}\n${upResult.stderr}\n${diagnostics}`).toBe(0);
    for (const task of ['init-control-plane', 'install-flannel', 'join-linux-workers'])
      expect(upResult.stdout).toContain(`DONE  ${task}`);
  });

  it(
    'has both nodes Ready with the pod CIDRs of the cluster network, as the API server says',
    async () => {
      // flanneld records its backend on the Node once it has its lease: on the worker that comes
      // just after the node is Ready (the install-cni container writes the CNI config first).
      const annotated = await kubectl(
        "wait node --all --for=jsonpath='{.metadata.annotations.flannel\\.alpha\\.coreos\\.com/backend-type}'=vxlan --timeout=300s",
      );
      expect(annotated.exitCode, annotated.stderr).toBe(0);
      const listed = await nodeObjects();
      expectBothReady(listed);
      for (const node of listed) {
        expect(node.spec.podCIDR, node.metadata.name).toMatch(/^10\.244\.\d+\.0\/24$/);
        expect(node.status.nodeInfo.kubeletVersion).toBe(`v${builtRelease().kubernetesVersion}`);
        // flannel's kube subnet manager records the VXLAN backend it set up on the node.
        const backend = JSON.parse(
          node.metadata.annotations['flannel.alpha.coreos.com/backend-data'] ?? '{}',
        );
        expect(backend.VNI, node.metadata.name).toBe(4096);
        expect(node.metadata.annotations['flannel.alpha.coreos.com/backend-type']).toBe('vxlan');
      }
    },
    6 * 60_000,
  );

  it('starts flanneld once on each node: it reaches the API server without waiting for kube-proxy', async () => {
    // Through the kubernetes Service's ClusterIP, flanneld's first start failed on both nodes (the
    // ClusterIP not yet programmed by kube-proxy) and its restart cost about 70 s per node; it now
    // uses the API server's own address (kube-flannel.yaml.j2, header item 5).
    const restarts = await kubectl(
      `-n kube-flannel get pods -o jsonpath='{range .items[*]}{.spec.nodeName} {.status.containerStatuses[?(@.name=="kube-flannel")].restartCount}{"\\n"}{end}'`,
    );
    expect(restarts.exitCode, restarts.stderr).toBe(0);
    const counts = Object.fromEntries(
      restarts.stdout
        .trim()
        .split('\n')
        .map((line) => line.split(' ')),
    );
    expect(counts, await flannelTimeline()).toEqual({ 'controller-01': '0', 'linux-01': '0' });
  });

  it('carries pod traffic over a VXLAN device with VNI 4096 on UDP 4789 on each guest', async () => {
    for (const address of nodes()) {
      const link = await guestSsh(lab.clusterDir, address, 'ip -d link show flannel.4096');
      expect(link.exitCode, link.stderr).toBe(0);
      expect(link.stdout).toMatch(/vxlan id 4096 .*dstport 4789/);
    }
  });

  it("writes the subnet.env for flannel's CNI plugin that the lab's stand-in models", async () => {
    // The lab runs no flanneld: what it says a node's flanneld wrote (fixtures/lab/state/footprint.ts)
    // is held here to what the real one wrote on each guest, from the node's real lease.
    const netConf = await kubectl(
      "-n kube-flannel get configmap kube-flannel-cfg -o jsonpath='{.data.net-conf\\.json}'",
    );
    expect(netConf.exitCode, netConf.stderr).toBe(0);
    const network = (JSON.parse(netConf.stdout) as { Network: string }).Network;
    const podCidrs = Object.fromEntries((await nodeObjects()).map((n) => [n.metadata.name, n.spec.podCIDR]));
    for (const [name, address] of [
      ['controller-01', lab.guest(0)],
      ['linux-01', lab.guest(1)],
    ] as const) {
      // As base64: execa drops a final newline from stdout, and the file's own is part of what is compared.
      const written = await guestSsh(lab.clusterDir, address, 'base64 -w0 /run/flannel/subnet.env');
      expect(written.exitCode, written.stderr).toBe(0);
      const bytes = Buffer.from(written.stdout, 'base64').toString('utf8');
      expect(bytes, name).toBe(flannelSubnetEnv(network, podCidrs[name]!));
    }
  });

  it("signs the cluster's certificates with ECDSA P-256 keys, as kubemix's kubeadm configuration asks", async () => {
    // Under emulation an RSA-2048 signature per TLS handshake starved the API server (the
    // kubeadm-config template's header): the CA and the API server's own certificate say which.
    const pki = await guestSsh(
      lab.clusterDir,
      lab.controller,
      'for c in ca apiserver; do openssl x509 -in /etc/kubernetes/pki/$c.crt -noout -text | grep -E "Public Key Algorithm|ASN1 OID"; done',
    );
    expect(pki.exitCode, pki.stderr).toBe(0);
    expect(pki.stdout.match(/id-ecPublicKey/g)).toHaveLength(2);
    expect(pki.stdout.match(/prime256v1/g)).toHaveLength(2);
  });

  it(
    'passes kubemix verify: node to pod, pod to pod across the nodes, Service VIP and DNS, NodePort',
    async () => {
      const verified = await lab.run('verify');
      const written = await readFile(join(lab.clusterDir, 'verify.json'), 'utf8').catch(async () => {
        throw new Error(
          `verify wrote no verify.json:\n${verified.stdout}\n${verified.stderr}\n${await nodeDiagnostics()}`,
        );
      });
      const report = JSON.parse(written);
      const results = Object.fromEntries(
        (report.checks as Array<{ check: string; ok: boolean; detail: string }>).map((c) => [c.check, c]),
      );
      for (const check of ['node-to-pod', 'pod-to-pod', 'service-vip', 'service-dns', 'nodeport'])
        expect(results[check]?.ok, `${check}: ${results[check]?.detail}\n${verified.stdout}`).toBe(true);
    },
    20 * 60_000,
  );

  it(
    'kubemix down leaves nothing of the cluster, and up builds it again on new guests',
    async () => {
      const uids = new Set((await nodeObjects()).map((n) => n.metadata.uid));
      const down = await lab.run('down');
      expect(down.exitCode, `${down.stdout}\n${down.stderr}`).toBe(0);
      expect(await lab.leftovers()).toEqual([]);
      await up();
      expect(upResult.exitCode, `${upResult.stdout}\n${upResult.stderr}\n${diagnostics}`).toBe(0);
      const again = await nodeObjects();
      expectBothReady(again);
      // A new cluster: its Node objects are not the old ones.
      for (const node of again) expect(uids.has(node.metadata.uid), node.metadata.name).toBe(false);
      const second = await lab.run('down');
      expect(second.exitCode, `${second.stdout}\n${second.stderr}`).toBe(0);
      expect(await lab.leftovers()).toEqual([]);
    },
    45 * 60_000,
  );
});
