import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { initCluster, randomToken } from '../../fixtures/lab/state/bootstrap.js';
import { JoinRefusedError } from '../../fixtures/lab/state/errors.js';
import { joinNode } from '../../fixtures/lab/state/join-node.js';
import { emptyState } from '../../fixtures/lab/state/state-file.js';
import { builtRelease } from '../../fixtures/release/built-release.js';
import {
  type JoinInfo,
  type LocalControlPlane,
  startLocalControlPlane,
} from '../../fixtures/release/local-control-plane.js';
import { realKubeadmJoin } from '../../fixtures/windows-sim/real-join/real-kubeadm-join.js';
import type { SimKubeletNode } from '../../fixtures/windows-sim/real-join/sim-kubelet.js';
import { pollUntil } from '../../scripts/lab/poll.js';
import { testTempDir } from '../helpers/temp.js';

// Issue 24 item 1: a simulated Windows node joins a REAL control plane (the release's etcd, API
// server and controller manager as processes, its PKI and bootstrap token made by the real
// kubeadm: fixtures/release/local-control-plane.ts with `joinable`). The join itself is the real
// kubeadm, chrooted into the node's root; the simulated kubelet answers its health check, posts a
// CSR that the real csrapproving and csrsigning controllers approve and sign, and registers its
// Node as itself. Refusals are kubeadm's own, and the lab's join model (fixtures/lab/state/
// join-node.ts) must say the same words for the same mistake.

const release = builtRelease();
let cp: LocalControlPlane;
let joinInfo: JoinInfo;
let work: string;

const WINDOWS_2022: SimKubeletNode = {
  name: 'win-2022',
  osVersion: '10.0.20348.2340',
  osImage: 'Windows Server 2022 Datacenter',
  kubeletVersion: release.kubernetesVersion,
  address: '192.0.2.22',
};

/** A Windows web Deployment as kubemix's verify runs one (nodeSelector and toleration), and its Service. */
const WINDOWS_WEB = `apiVersion: apps/v1
kind: Deployment
metadata: { name: win-web, namespace: default }
spec:
  replicas: 2
  selector: { matchLabels: { app: win-web } }
  template:
    metadata: { labels: { app: win-web } }
    spec:
      nodeSelector: { kubernetes.io/os: windows }
      tolerations: [{ key: os, operator: Equal, value: windows, effect: NoSchedule }]
      containers:
        - name: web
          image: mcr.microsoft.com/windows/servercore/iis:windowsservercore-ltsc2022
          ports: [{ containerPort: 80 }]
---
apiVersion: v1
kind: Service
metadata: { name: win-web, namespace: default }
spec:
  selector: { app: win-web }
  ports: [{ port: 80, targetPort: 80 }]
`;

beforeAll(async () => {
  work = await testTempDir('real-join');
  cp = await startLocalControlPlane(release, join(work, 'control-plane'), {
    joinable: true,
    scheduling: true,
  });
  joinInfo = cp.join!;
}, 120_000);

afterAll(async () => {
  await cp?.stop();
});

interface CsrObject {
  metadata: { name: string };
  spec: { username: string; signerName: string };
  status: { conditions?: Array<{ type: string; reason: string }> };
}

describe('a simulated Windows node joins a real control plane', () => {
  it('through the real kubeadm: discovery, a CSR the real controllers approve and sign, its Node registered as itself, its pods in the real EndpointSlices', async () => {
    const root = join(work, 'win-2022');
    const result = await realKubeadmJoin(release, root, WINDOWS_2022, {
      apiServerEndpoint: joinInfo.apiServerEndpoint,
      token: joinInfo.token,
      caCertHash: joinInfo.caCertHash,
      taints: [{ key: 'os', value: 'windows', effect: 'NoSchedule' }],
    });
    try {
      expect(result.exitCode, `${result.stdout}\n${result.stderr}`).toBe(0);
      expect(result.stdout).toContain('This node has joined the cluster');
      await result.kubelet.registered;

      const node = JSON.parse(await cp.kubectlOk(['get', 'node', 'win-2022', '-o', 'json']));
      expect(node.metadata.labels).toMatchObject({
        'kubernetes.io/os': 'windows',
        'kubernetes.io/arch': 'amd64',
        'node.kubernetes.io/windows-build': '10.0.20348',
      });
      // kubeadm passed the JoinConfiguration's taints to the kubelet (--register-with-taints).
      expect(node.spec.taints).toContainEqual({ key: 'os', value: 'windows', effect: 'NoSchedule' });

      // The real csrapproving controller approved the CSR the bootstrap token posted.
      const csrs = JSON.parse(await cp.kubectlOk(['get', 'csr', '-o', 'json'])).items as CsrObject[];
      expect(csrs).toHaveLength(1);
      expect(csrs[0]!.spec.username).toBe(`system:bootstrap:${joinInfo.token.split('.')[0]}`);
      expect(csrs[0]!.spec.signerName).toBe('kubernetes.io/kube-apiserver-client-kubelet');
      expect(csrs[0]!.status.conditions?.find((c) => c.type === 'Approved')?.reason).toBe('AutoApproved');

      // csrsigning signed it with the cluster CA, for the node's identity.
      const pem = join(root, 'var/lib/kubelet/pki/kubelet-client-current.pem');
      const verified = await execa('openssl', [
        'verify',
        '-CAfile',
        join(work, 'control-plane/pki/ca.crt'),
        pem,
      ]);
      expect(verified.stdout).toContain(': OK');
      const subject = await execa('openssl', ['x509', '-in', pem, '-noout', '-subject']);
      expect(subject.stdout).toMatch(/O ?= ?system:nodes, CN ?= ?system:node:win-2022/);

      // kubeadm took the token off the node's disk once the kubelet had its certificate.
      expect(existsSync(join(root, 'etc/kubernetes/bootstrap-kubelet.conf'))).toBe(false);
      expect(existsSync(join(root, 'etc/kubernetes/kubelet.conf'))).toBe(true);

      // The real node controllers take it from there: IPAM gives it a pod CIDR, and the not-ready
      // taint admission puts on every new Node (TaintNodesByCondition,
      // plugin/pkg/admission/nodetaint/admission.go at v1.37.2) comes off once lifecycle sees the
      // kubelet's Ready.
      let settled: { spec: { podCIDR?: string; taints?: Array<{ key: string }> } } = { spec: {} };
      const taken = await pollUntil(
        async () => {
          settled = JSON.parse(await cp.kubectlOk(['get', 'node', 'win-2022', '-o', 'json']));
          return (
            settled.spec.podCIDR !== undefined &&
            !settled.spec.taints?.some((t) => t.key === 'node.kubernetes.io/not-ready')
          );
        },
        { timeoutMs: 60_000, intervalMs: 500 },
      );
      expect(taken, JSON.stringify(settled.spec)).toBe(true);
      expect(settled.spec.podCIDR).toMatch(/^10\.244\.\d+\.0\/24$/);
      const lease = JSON.parse(
        await cp.kubectlOk(['get', 'lease', 'win-2022', '-n', 'kube-node-lease', '-o', 'json']),
      );
      expect(lease.spec).toMatchObject({ holderIdentity: 'win-2022', leaseDurationSeconds: 40 });
      expect(lease.metadata.ownerReferences[0]).toMatchObject({ kind: 'Node', name: 'win-2022' });

      // The identity is real: NodeRestriction refuses this node a change to any other Node.
      const asNode = [
        '--kubeconfig',
        join(root, 'etc/kubernetes/kubelet.conf'),
        `--client-certificate=${pem}`,
        `--client-key=${pem}`,
      ];
      const other = await execa(
        join(release.kubernetes, 'kubectl'),
        [...asNode, 'label', 'node', 'local-control-plane-missing', 'a=b'],
        { reject: false },
      );
      expect(other.exitCode).not.toBe(0);
      expect(other.stderr).toMatch(/forbidden|cannot/i);

      // Pods: a Windows Deployment placed by the real scheduler runs on the simulated kubelet with
      // an address of the node's pod CIDR, and the real EndpointSlice controller serves it.
      await cp.kubectlOk(['apply', '-f', '-'], WINDOWS_WEB);
      let slice: {
        endpoints?: Array<{ addresses: string[]; nodeName?: string; conditions: { ready?: boolean } }>;
      } = {};
      const served = await pollUntil(
        async () => {
          const slices = JSON.parse(
            await cp.kubectlOk([
              'get',
              'endpointslices',
              '-l',
              'kubernetes.io/service-name=win-web',
              '-o',
              'json',
            ]),
          ).items;
          slice = slices[0] ?? {};
          return (slice.endpoints ?? []).filter((e) => e.conditions.ready).length === 2;
        },
        { timeoutMs: 60_000, intervalMs: 500 },
      );
      expect(served, JSON.stringify(slice)).toBe(true);
      const cidr = settled.spec.podCIDR!.replace(/0\/24$/, '');
      for (const endpoint of slice.endpoints!) {
        expect(endpoint.nodeName).toBe('win-2022');
        expect(endpoint.addresses[0]!.startsWith(cidr)).toBe(true);
      }
      expect(new Set(slice.endpoints!.map((e) => e.addresses[0])).size).toBe(2);

      // Scaled down, the pod being deleted is confirmed gone by the kubelet and leaves the slice.
      await cp.kubectlOk(['scale', 'deployment', 'win-web', '--replicas=1']);
      const shrunk = await pollUntil(
        async () =>
          JSON.parse(await cp.kubectlOk(['get', 'pods', '-l', 'app=win-web', '-o', 'json'])).items.length ===
          1,
        { timeoutMs: 60_000, intervalMs: 500 },
      );
      expect(shrunk).toBe(true);
    } finally {
      await result.kubelet.stop();
    }
  }, 180_000);

  /** The lab's words for the same join: its state holds the real cluster's token, hash and endpoint. */
  function labRefusal(token: string, caCertHash: string, tokens: string[]): string {
    const state = emptyState();
    initCluster(state, {
      controlPlaneEndpoint: joinInfo.apiServerEndpoint,
      podCIDR: '10.244.0.0/16',
      serviceCIDR: '10.96.0.0/12',
      kubernetesVersion: release.kubernetesVersion,
    });
    state.cluster!.caCertHash = joinInfo.caCertHash;
    state.cluster!.tokens = tokens.map((t) => ({
      token: t,
      expires: new Date(Date.now() + 3600_000).toISOString(),
      description: '',
      usages: ['authentication', 'signing'],
    }));
    try {
      joinNode(state, { name: 'win-2022', os: 'windows', token, caCertHash });
    } catch (error) {
      if (error instanceof JoinRefusedError) return error.message;
      throw error;
    }
    return 'the lab joined the node';
  }

  /** The real kubeadm's error line for a join that must fail at discovery. */
  async function realRefusal(name: string, token: string, caCertHash: string): Promise<string> {
    const result = await realKubeadmJoin(
      release,
      join(work, name),
      { ...WINDOWS_2022, name },
      {
        apiServerEndpoint: joinInfo.apiServerEndpoint,
        token,
        caCertHash,
        // kubeadm waits this long for a signature that never comes (its default is 5 minutes).
        timeouts: { discovery: '5s' },
      },
    );
    await result.kubelet.stop();
    expect(result.exitCode).toBe(1);
    return result.stderr.split('\n').find((line) => line.startsWith('error: ')) ?? result.stderr;
  }

  it('refuses a CA hash that does not pin the cluster CA, in kubeadm words the lab shares', async () => {
    const wrongHash = `sha256:${'0'.repeat(64)}`;
    const real = await realRefusal('wrong-hash', joinInfo.token, wrongHash);
    expect(real).toContain(`none of the public keys "${joinInfo.caCertHash}" are pinned`);
    expect(real).toBe(`error: ${labRefusal(joinInfo.token, wrongHash, [joinInfo.token])}`);
  }, 60_000);

  it('refuses a token whose secret is wrong, in kubeadm words the lab shares', async () => {
    const [id] = joinInfo.token.split('.');
    const forged = `${id}.${'0'.repeat(16)}`;
    const real = await realRefusal('wrong-secret', forged, joinInfo.caCertHash);
    expect(real).toContain('failed to verify JWS signature');
    expect(real).toBe(`error: ${labRefusal(forged, joinInfo.caCertHash, [joinInfo.token])}`);
  }, 60_000);

  it('refuses an expired token once the real controllers have removed it, in kubeadm words the lab shares', async () => {
    // A token that lives two seconds, created by the real kubeadm; the real tokencleaner deletes it
    // and bootstrapsigner takes its signature off cluster-info.
    const expiring = randomToken();
    await execa(join(release.kubernetes, 'kubeadm'), [
      'token',
      'create',
      expiring,
      '--ttl',
      '2s',
      '--kubeconfig',
      cp.kubeconfig,
    ]);
    const [id] = expiring.split('.');
    const signed = async () =>
      `jws-kubeconfig-${id}` in
      (JSON.parse(await cp.kubectlOk(['get', 'configmap', 'cluster-info', '-n', 'kube-public', '-o', 'json']))
        .data as Record<string, string>);
    // Polls of the API: first signed (it may expire before bootstrapsigner gets to it, then it is
    // never signed: the check below still holds), then the signature gone.
    await pollUntil(signed, { timeoutMs: 5_000, intervalMs: 200 });
    const gone = await pollUntil(async () => !(await signed()), { timeoutMs: 60_000, intervalMs: 500 });
    expect(gone).toBe(true);
    const real = await realRefusal('expired-token', expiring, joinInfo.caCertHash);
    expect(real).toContain(
      `could not find a JWS signature in the cluster-info ConfigMap for token ID "${id}"`,
    );
    // The lab keeps no expired token either (its join looks only at unexpired ones).
    expect(real).toBe(`error: ${labRefusal(expiring, joinInfo.caCertHash, [joinInfo.token])}`);
  }, 120_000);
});
