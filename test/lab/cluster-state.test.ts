import { describe, expect, it, vi } from 'vitest';
import {
  ClusterState,
  InvalidObjectError,
  JoinRefusedError,
  type KubeObject,
  NotFoundError,
  TOKEN_PATTERN,
} from '../../fixtures/lab/cluster-state.js';
import { renderManifestObjects } from '../../src/manifests/index.js';
import { loadVersions } from '../../src/versions/versions.js';
import { testTempDir } from '../helpers/temp.js';
import { initialisedState, labManifestVars } from './helpers.js';

const ready = (node: KubeObject | undefined) =>
  (
    (node?.['status'] as { conditions?: { type: string; status: string }[] } | undefined)?.conditions ?? []
  ).find((c) => c.type === 'Ready')?.status;

async function applyAll(state: ClusterState, objects: KubeObject[]) {
  for (const o of objects) await state.applyObject(o);
}

describe('cluster state: init and tokens', () => {
  it('init returns a kubeadm-shaped token, CA hash and certificate key', async () => {
    const { init, state } = await initialisedState();
    expect(init.token).toMatch(TOKEN_PATTERN);
    expect(init.caCertHash).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(init.certificateKey).toMatch(/^[0-9a-f]{64}$/);
    const tokens = await state.listTokens();
    expect(tokens.map((t) => t.token)).toEqual([init.token]);
    const ttl = Date.parse(tokens[0]!.expires) - Date.now();
    expect(ttl).toBeGreaterThan(23.9 * 3600_000);
    expect(ttl).toBeLessThanOrEqual(24 * 3600_000);
  });

  it('refuses a second init while the cluster exists', async () => {
    const { state } = await initialisedState();
    await expect(
      state.initCluster({
        controlPlaneEndpoint: 'x:6443',
        podCIDR: '10.244.0.0/16',
        serviceCIDR: '10.96.0.0/12',
        kubernetesVersion: '1.31.2',
      }),
    ).rejects.toThrow(/already has a cluster/);
  });

  it('creates, lists and deletes tokens; a deleted token no longer joins', async () => {
    const { state, init } = await initialisedState();
    const extra = await state.createToken();
    expect(extra).toMatch(TOKEN_PATTERN);
    expect((await state.listTokens()).map((t) => t.token).sort()).toEqual([init.token, extra].sort());
    expect(await state.deleteToken(extra.split('.')[0]!)).toBe(true);
    expect(await state.deleteToken(extra)).toBe(false);
    await expect(
      state.joinNode({ name: 'w1', os: 'linux', token: extra, caCertHash: init.caCertHash }),
    ).rejects.toThrow(
      `could not find a JWS signature in the cluster-info ConfigMap for token ID "${extra.split('.')[0]}"`,
    );
  });

  it('an expired token is refused', async () => {
    const { state, init } = await initialisedState();
    const shortLived = await state.createToken({ ttlMs: 60_000 });
    // A minute later by the clock the state reads (only Date is faked: file locks keep real timers).
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      vi.setSystemTime(Date.now() + 61_000);
      expect((await state.listTokens()).map((t) => t.token)).toEqual([init.token]);
      await expect(
        state.joinNode({ name: 'w1', os: 'linux', token: shortLived, caCertHash: init.caCertHash }),
      ).rejects.toBeInstanceOf(JoinRefusedError);
    } finally {
      vi.useRealTimers();
    }
  });
});

describe('cluster state: join refusals use kubeadm wording and never repeat the token secret', () => {
  it('wrong CA hash', async () => {
    const { state, init } = await initialisedState();
    const wrong = `sha256:${'0'.repeat(64)}`;
    const error = await state
      .joinNode({ name: 'w1', os: 'linux', token: init.token, caCertHash: wrong })
      .catch((e: unknown) => e as Error);
    expect(error).toBeInstanceOf(JoinRefusedError);
    expect((error as Error).message).toBe(
      `error execution phase preflight: couldn't validate the identity of the API Server: cluster CA found in cluster-info ConfigMap is invalid: none of the public keys "${init.caCertHash}" are pinned`,
    );
  });

  it('right token id, wrong secret', async () => {
    const { state, init } = await initialisedState();
    const forged = `${init.token.split('.')[0]}.${'a'.repeat(16)}`;
    const error = (await state
      .joinNode({ name: 'w1', os: 'linux', token: forged, caCertHash: init.caCertHash })
      .catch((e: unknown) => e)) as Error;
    expect(error.message).toMatch(/failed to verify JWS signature of received cluster info object/);
    expect(error.message).not.toContain(init.token.split('.')[1]);
  });

  it('malformed token, unknown endpoint, duplicate name', async () => {
    const { state, init } = await initialisedState();
    await expect(
      state.joinNode({ name: 'w1', os: 'linux', token: 'nope', caCertHash: init.caCertHash }),
    ).rejects.toThrow(/the bootstrap token is invalid/);
    await expect(
      state.joinNode({
        name: 'w1',
        os: 'linux',
        token: init.token,
        caCertHash: init.caCertHash,
        apiServerEndpoint: '10.9.9.9:6443',
      }),
    ).rejects.toThrow(/dial tcp 10.9.9.9:6443: connect: connection refused/);
    await expect(
      state.joinNode({ name: 'cp1', os: 'linux', token: init.token, caCertHash: init.caCertHash }),
    ).rejects.toThrow(/a Node with name "cp1" and status "NotReady" already exists in the cluster/);
  });

  it('control-plane joins need the uploaded certificate key', async () => {
    const { state, init } = await initialisedState();
    const base = { os: 'linux' as const, token: init.token, caCertHash: init.caCertHash, controlPlane: true };
    await expect(state.joinNode({ ...base, name: 'cp2' })).rejects.toThrow(
      /failure loading certificate for CA/,
    );
    await expect(state.joinNode({ ...base, name: 'cp2', certificateKey: 'f'.repeat(64) })).rejects.toThrow(
      /cipher: message authentication failed/,
    );
    const node = await state.joinNode({ ...base, name: 'cp2', certificateKey: init.certificateKey });
    expect(node.metadata.labels?.['node-role.kubernetes.io/control-plane']).toBe('');
    const fresh = await state.uploadCerts();
    expect(fresh).not.toBe(init.certificateKey);
    await expect(
      state.joinNode({ ...base, name: 'cp3', certificateKey: init.certificateKey }),
    ).rejects.toThrow(/message authentication failed/);
    await state.joinNode({ ...base, name: 'cp3', certificateKey: fresh });
  });

  it('a cluster without a stable endpoint refuses control-plane joins', async () => {
    const state = ClusterState.open(await testTempDir('lab-test'));
    const init = await state.initCluster({
      controlPlaneEndpoint: '10.0.0.1:6443',
      stableEndpoint: false,
      podCIDR: '10.244.0.0/16',
      serviceCIDR: '10.96.0.0/12',
      kubernetesVersion: '1.31.2',
    });
    await expect(
      state.joinNode({
        name: 'cp2',
        os: 'linux',
        token: init.token,
        caCertHash: init.caCertHash,
        controlPlane: true,
        certificateKey: init.certificateKey,
      }),
    ).rejects.toThrow(/doesn't have a stable controlPlaneEndpoint address/);
  });

  it('joining before init is a refused connection', async () => {
    const state = ClusterState.open(await testTempDir('lab-test'));
    await expect(
      state.joinNode({
        name: 'w1',
        os: 'linux',
        token: 'abcdef.0123456789abcdef',
        caCertHash: 'sha256:x',
        apiServerEndpoint: '10.0.0.1:6443',
      }),
    ).rejects.toThrow(/connection refused/);
  });
});

describe('cluster state: nodes become Ready like a real cluster', () => {
  it('Linux nodes are NotReady until a flannel DaemonSet for Linux is applied', async () => {
    const { state, init } = await initialisedState();
    await state.joinNode({
      name: 'w1',
      os: 'linux',
      token: init.token,
      caCertHash: init.caCertHash,
      address: '10.233.1.3',
    });
    expect((await state.nodes()).map((n) => [n.metadata.name, ready(n)])).toEqual([
      ['cp1', 'False'],
      ['w1', 'False'],
    ]);
    const cp1 = await state.getObject('Node', undefined, 'cp1');
    expect((cp1?.['spec'] as { taints?: unknown[] } | undefined)?.taints).toContainEqual({
      key: 'node.kubernetes.io/not-ready',
      effect: 'NoSchedule',
    });
    await applyAll(state, renderManifestObjects('kube-flannel', labManifestVars()));
    const nodes = await state.nodes();
    expect(nodes.map((n) => ready(n))).toEqual(['True', 'True']);
    expect(nodes.map((n) => (n['spec'] as { podCIDR: string }).podCIDR)).toEqual([
      '10.244.0.0/24',
      '10.244.1.0/24',
    ]);
    expect(nodes[1]!.metadata.labels).toMatchObject({
      'kubernetes.io/os': 'linux',
      'kubernetes.io/hostname': 'w1',
    });
    await state.setKubelet('w1', false);
    expect(ready(await state.getObject('Node', undefined, 'w1'))).toBe('False');
  });

  it('a Windows node needs the Windows flannel and kube-proxy DaemonSets and a running kubelet', async () => {
    const { state, init } = await initialisedState();
    await applyAll(state, renderManifestObjects('kube-flannel', labManifestVars()));
    await state.joinNode({
      name: 'win1',
      os: 'windows',
      token: init.token,
      caCertHash: init.caCertHash,
      windowsBuild: '10.0.17763',
      kubeletRunning: false,
    });
    const win = () => state.getObject('Node', undefined, 'win1');
    expect((await win())?.metadata.labels?.['node.kubernetes.io/windows-build']).toBe('10.0.17763');
    expect(ready(await win())).toBe('False');
    await applyAll(state, renderManifestObjects('kube-flannel-windows', labManifestVars()));
    await applyAll(state, renderManifestObjects('kube-proxy-windows', labManifestVars()));
    expect(ready(await win())).toBe('False');
    await state.setKubelet('win1', true);
    expect(ready(await win())).toBe('True');
  });
});

describe('cluster state: pods and scheduling', () => {
  it('coredns stays Pending until a node is Ready, then runs with addresses from the node podCIDR', async () => {
    const { state } = await initialisedState();
    const coredns = async () =>
      (await state.pods('kube-system')).filter((p) => p.metadata.name.startsWith('coredns-'));
    expect((await coredns()).map((p) => (p['status'] as { phase: string }).phase)).toEqual([
      'Pending',
      'Pending',
    ]);
    const events = await state.events('kube-system');
    expect(events.find((e) => e.reason === 'FailedScheduling')?.message).toMatch(
      /^0\/1 nodes are available: 1 node\(s\) had untolerated taint \{node.kubernetes.io\/not-ready: \}/,
    );
    await applyAll(state, renderManifestObjects('kube-flannel', labManifestVars()));
    const running = await coredns();
    expect(running.map((p) => (p['status'] as { phase: string }).phase)).toEqual(['Running', 'Running']);
    expect(running.map((p) => (p['status'] as { podIP: string }).podIP)).toEqual([
      '10.244.0.2',
      '10.244.0.3',
    ]);
    const flannel = (await state.pods('kube-flannel'))[0]!;
    expect((flannel['status'] as { podIP: string }).podIP).toBe('10.233.1.2');
  });

  it('honours nodeSelector, taints and tolerations', async () => {
    const { state, init } = await initialisedState();
    await applyAll(state, renderManifestObjects('kube-flannel', labManifestVars()));
    await state.joinNode({ name: 'w1', os: 'linux', token: init.token, caCertHash: init.caCertHash });
    await state.applyObject({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web', namespace: 'default' },
      spec: {
        replicas: 3,
        selector: { matchLabels: { app: 'web' } },
        template: {
          metadata: { labels: { app: 'web' } },
          spec: { containers: [{ name: 'web', image: 'nginx' }] },
        },
      },
    });
    const web = (await state.pods('default')).filter((p) => p.metadata.name.startsWith('web-'));
    // The control plane's NoSchedule taint keeps untolerating pods on the worker.
    expect(web.map((p) => (p['spec'] as { nodeName: string }).nodeName)).toEqual(['w1', 'w1', 'w1']);
    await state.taintNode('w1', [{ key: 'dedicated', value: 'x', effect: 'NoSchedule' }]);
    const pending = (await state.pods('default')).filter((p) => p.metadata.name.startsWith('web-'));
    expect(pending.every((p) => (p['status'] as { phase: string }).phase === 'Pending')).toBe(true);
    await state.taintNode('w1', [], [{ key: 'dedicated' }]);
    await expect(state.taintNode('w1', [], [{ key: 'dedicated' }])).rejects.toBeInstanceOf(NotFoundError);
  });

  it('win-webserver runs only with a Ready Windows node and matching VXLAN VNI/port on both sides', async () => {
    const { state, init } = await initialisedState();
    const phases = async () =>
      (await state.pods('default'))
        .filter((p) => p.metadata.name.startsWith('win-webserver-'))
        .map((p) => (p['status'] as { phase: string }).phase);
    await applyAll(state, renderManifestObjects('kube-flannel', labManifestVars(4096, 4789)));
    await applyAll(state, renderManifestObjects('runtimeclasses', labManifestVars()));
    await applyAll(state, renderManifestObjects('win-webserver', labManifestVars()));
    expect(await phases()).toEqual(['Pending', 'Pending']);
    await state.joinNode({ name: 'win1', os: 'windows', token: init.token, caCertHash: init.caCertHash });
    // Windows flannel with the upstream Linux defaults (VNI 1, port 8472): the HNS network never appears.
    await applyAll(state, renderManifestObjects('kube-flannel-windows', labManifestVars(1, 8472)));
    await applyAll(state, renderManifestObjects('kube-proxy-windows', labManifestVars()));
    expect(await phases()).toEqual(['Pending', 'Pending']);
    const events = await state.events('default');
    expect(
      events.some(
        (e) => e.reason === 'FailedCreatePodSandBox' && /Network flannel\.1 not found/.test(e.message),
      ),
    ).toBe(true);
    await applyAll(state, renderManifestObjects('kube-flannel-windows', labManifestVars(4096, 4789)));
    expect(await phases()).toEqual(['Running', 'Running']);
  });
});

describe('cluster state: objects', () => {
  it('apply reports created / unchanged / configured and validates like the API server', async () => {
    const { state } = await initialisedState();
    const cm: KubeObject = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'c', namespace: 'default' },
      data: { a: '1' },
    };
    expect(await state.applyObject(cm)).toBe('created');
    expect(await state.applyObject(cm)).toBe('unchanged');
    expect(await state.applyObject({ ...cm, data: { a: '2' } })).toBe('configured');
    await expect(
      state.applyObject({ ...cm, metadata: { name: 'Bad_Name', namespace: 'default' } }),
    ).rejects.toThrow(/ConfigMap "Bad_Name" is invalid: metadata.name: Invalid value/);
    await expect(
      state.applyObject({
        apiVersion: 'apps/v1',
        kind: 'DaemonSet',
        metadata: { name: 'd' },
        spec: { selector: {}, template: { spec: {} } },
      }),
    ).rejects.toThrow(/spec.template.spec.containers: Required value/);
    await expect(
      state.applyObject({ apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w' } }),
    ).rejects.toBeInstanceOf(InvalidObjectError);
    await expect(state.applyObject({ ...cm, metadata: { name: 'c', namespace: 'nowhere' } })).rejects.toThrow(
      'namespaces "nowhere" not found',
    );
    expect(await state.deleteObject('ConfigMap', 'default', 'c')).toBe(true);
    expect(await state.getObject('ConfigMap', 'default', 'c')).toBeUndefined();
  });

  it('reset removes a node; resetting the last control plane removes the cluster', async () => {
    const { state, init } = await initialisedState();
    await state.joinNode({ name: 'w1', os: 'linux', token: init.token, caCertHash: init.caCertHash });
    expect(await state.reset('w1')).toBe(true);
    expect(await state.reset('w1')).toBe(false);
    expect((await state.nodes()).map((n) => n.metadata.name)).toEqual(['cp1']);
    await state.reset('cp1');
    expect(await state.cluster()).toBeUndefined();
    await state.resetAll();
    expect((await state.read()).nodes).toEqual([]);
  });

  it('concurrent writers never lose an update', async () => {
    const { state, init } = await initialisedState();
    const others = Array.from({ length: 8 }, () => ClusterState.open(state.dir));
    await Promise.all(
      others.map((s, i) =>
        s.joinNode({ name: `w${i}`, os: 'linux', token: init.token, caCertHash: init.caCertHash }),
      ),
    );
    const nodes = await state.nodes();
    expect(nodes).toHaveLength(9);
    expect(new Set(nodes.map((n) => (n['spec'] as { podCIDR: string }).podCIDR)).size).toBe(9);
  });
});

describe('cluster state: node status', () => {
  it('a Windows node reports the containerd kubemix pins for Install-Containerd.ps1 unless its join names one', async () => {
    const { state, init } = await initialisedState();
    const base = { os: 'windows' as const, token: init.token, caCertHash: init.caCertHash };
    await state.joinNode({ ...base, name: 'win1' });
    await state.joinNode({ ...base, name: 'win2', containerRuntimeVersion: 'containerd://2.3.3' });
    const runtime = async (name: string) => {
      const node = (await state.nodes()).find((n) => n.metadata.name === name);
      return (node?.['status'] as { nodeInfo?: { containerRuntimeVersion?: string } } | undefined)?.nodeInfo
        ?.containerRuntimeVersion;
    };
    expect(await runtime('win1')).toBe(`containerd://${loadVersions()['containerd']}`);
    expect(await runtime('win2')).toBe('containerd://2.3.3');
  });
});
