import { readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { ClusterState } from '../../fixtures/lab/cluster-state.js';
import { renderManifestObjects } from '../../src/manifests/index.js';
import { testTempDir } from '../helpers/temp.js';
import { type FakeHost, fakeHost, labManifestVars } from './helpers.js';
import { printJoinCommand } from './kubeadm-config.js';

/** kubeadm's config for cp1 (v1beta4): its node name, endpoint and pod/service subnets. */
async function writeInitConfig(cp: FakeHost): Promise<string> {
  const config = join(cp.root, 'kubeadm.yaml');
  await writeFile(
    config,
    [
      {
        apiVersion: 'kubeadm.k8s.io/v1beta4',
        kind: 'InitConfiguration',
        nodeRegistration: { name: 'cp1' },
      },
      {
        apiVersion: 'kubeadm.k8s.io/v1beta4',
        kind: 'ClusterConfiguration',
        kubernetesVersion: 'v1.31.2',
        controlPlaneEndpoint: '10.9.0.2:6443',
        networking: { podSubnet: '10.244.0.0/16', serviceSubnet: '10.96.0.0/12' },
      },
    ]
      .map((d) => stringify(d))
      .join('---\n'),
  );
  return config;
}

/**
 * Hosts cp1 (10.9.0.2) and w1 (10.9.0.3) sharing a fresh cluster state; each test gets its own, so
 * no test depends on what another did. `init`: cp1 has run kubeadm init; `join`: w1 has joined too.
 */
async function freshCluster(steps: { init?: boolean; join?: boolean } = {}) {
  const stateDir = await testTempDir('state');
  const cp = await fakeHost(stateDir, 'cp1', '10.9.0.2');
  const worker = await fakeHost(stateDir, 'w1', '10.9.0.3');
  const admin = join(cp.root, 'etc/kubernetes/admin.conf');
  /** `kubeadm token create --print-join-command` on cp1, as arguments of kubeadm. */
  const joinCommand = async () => {
    const printed = await cp.run('kubeadm', [
      'token',
      'create',
      '--print-join-command',
      '--kubeconfig',
      admin,
    ]);
    expect(printed.stderr).toBe('');
    return printed.stdout.trim().split(/\s+/).slice(1);
  };
  if (steps.init || steps.join) {
    const init = await cp.run('kubeadm', ['init', '--config', await writeInitConfig(cp), '--upload-certs']);
    expect(init.stderr).toBe('');
  }
  if (steps.join) expect((await worker.run('kubeadm', await joinCommand())).stderr).toBe('');
  return { stateDir, cp, worker, admin, joinCommand };
}

describe('stand-in programs run as child processes', () => {
  it('kubeadm init refuses an unprepared host with the real preflight errors', async () => {
    const stateDir = await testTempDir('state');
    const raw = await fakeHost(stateDir, 'raw', '10.9.0.9', false);
    const missing = await raw.run('kubeadm', ['init']);
    expect(missing).toMatchObject({ code: 127, stderr: 'sh: 1: kubeadm: not found\n' });
    const other = await fakeHost(stateDir, 'other', '10.9.0.8');
    await writeFile(
      join(other.root, 'var/lib/kubemix-lab/host.json'),
      JSON.stringify({
        packages: { kubeadm: '1.31.2-1.1', kubelet: '1.31.2-1.1' },
        held: [],
        modules: [],
        sysctl: {},
        swapOn: true,
        services: {},
        aptSources: [],
      }),
    );
    const r = await other.run('kubeadm', ['init', '--pod-network-cidr', '10.244.0.0/16']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('error execution phase preflight: [preflight] Some fatal errors occurred:');
    expect(r.stderr).toContain('[ERROR Swap]: running with swap on is not supported. Please disable swap');
    expect(r.stderr).toContain(
      '[ERROR FileContent--proc-sys-net-bridge-bridge-nf-call-iptables]: /proc/sys/net/bridge/bridge-nf-call-iptables does not exist',
    );
    expect(r.stderr).toContain(
      '[ERROR FileContent--proc-sys-net-ipv4-ip_forward]: /proc/sys/net/ipv4/ip_forward contents are not set to 1',
    );
    expect(r.stderr).toContain('[ERROR CRI]: container runtime is not running');
    const ignored = await other.run('kubeadm', [
      'init',
      '--ignore-preflight-errors=Swap,CRI,FileContent--proc-sys-net-bridge-bridge-nf-call-iptables',
    ]);
    expect(ignored.stderr).not.toContain('ERROR Swap');
    expect(ignored.stderr).toContain('ERROR FileContent--proc-sys-net-ipv4-ip_forward');
  });

  it('kubeadm init prints the real success text and a join command with a fresh token and the CA hash', async () => {
    const { stateDir, cp, admin } = await freshCluster();
    const config = await writeInitConfig(cp);
    const mixed = await cp.run('kubeadm', ['init', '--config', config, '--pod-network-cidr', '10.1.0.0/16']);
    expect(mixed.stderr).toContain("can not mix '--config' with arguments [pod-network-cidr]");
    const r = await cp.run('kubeadm', ['init', '--config', config, '--upload-certs']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('Your Kubernetes control-plane has initialized successfully!');
    const cluster = (await ClusterState.open(stateDir).cluster())!;
    const token = cluster.tokens[0]!.token;
    expect(r.stdout).toContain(
      `kubeadm join 10.9.0.2:6443 --token ${token} \\\n\t--discovery-token-ca-cert-hash ${cluster.caCertHash}`,
    );
    expect(r.stdout).toContain(`--control-plane --certificate-key ${cluster.certificateKey!.key}`);
    const again = await cp.run('kubeadm', ['init', '--config', config]);
    expect(again.stderr).toContain(
      '[ERROR FileAvailable--etc-kubernetes-manifests-kube-apiserver.yaml]: /etc/kubernetes/manifests/kube-apiserver.yaml already exists',
    );
    const printed = await cp.run('kubeadm', [
      'token',
      'create',
      '--print-join-command',
      '--kubeconfig',
      admin,
    ]);
    expect(printed.stdout).toMatch(
      /^kubeadm join 10\.9\.0\.2:6443 --token [a-z0-9]{6}\.[a-z0-9]{16} --discovery-token-ca-cert-hash sha256:[0-9a-f]{64} \n$/,
    );
  });

  it('kubeadm join refuses a wrong CA hash with the real error, then joins with the right one', async () => {
    const { worker, joinCommand: printJoin } = await freshCluster({ init: true });
    const joinCommand = await printJoin();
    const wrong = joinCommand.map((a) => (a.startsWith('sha256:') ? `sha256:${'ab'.repeat(32)}` : a));
    const refused = await worker.run('kubeadm', wrong);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(
      /^error execution phase preflight: couldn't validate the identity of the API Server: cluster CA found in cluster-info ConfigMap is invalid: none of the public keys "sha256:[0-9a-f]{64}" are pinned\nTo see the stack trace of this error execute with --v=5 or higher\n$/,
    );
    const ok = await worker.run('kubeadm', joinCommand);
    expect(ok.code).toBe(0);
    expect(ok.stdout).toContain('This node has joined the cluster:');
    const again = await worker.run('kubeadm', joinCommand);
    expect(again.stderr).toContain(
      '[ERROR FileAvailable--etc-kubernetes-kubelet.conf]: /etc/kubernetes/kubelet.conf already exists',
    );
  });

  it('kubectl apply refuses an invalid object like the API server and stores the valid ones', async () => {
    const { cp, admin } = await freshCluster({ init: true });
    const manifest = join(cp.root, 'objects.yaml');
    await writeFile(
      manifest,
      [
        {
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: { name: 'good', namespace: 'default' },
          data: { a: '1' },
        },
        {
          apiVersion: 'apps/v1',
          kind: 'DaemonSet',
          metadata: { name: 'broken', namespace: 'default' },
          spec: {
            selector: { matchLabels: { app: 'x' } },
            template: { metadata: { labels: { app: 'x' } }, spec: {} },
          },
        },
      ]
        .map((d) => stringify(d))
        .join('---\n'),
    );
    const r = await cp.run('kubectl', ['--kubeconfig', admin, 'apply', '-f', manifest]);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('configmap/good created\n');
    expect(r.stderr).toBe(
      // One error alone: kubectl prints an Invalid status's details (fixtures/lab/standins/tools/kubectl-errors.ts).
      'The DaemonSet "broken" is invalid: spec.template.spec.containers: Required value\n',
    );
    const unchanged = await cp.run('kubectl', ['--kubeconfig', admin, 'apply', '-f', manifest]);
    expect(unchanged.stdout).toBe('configmap/good unchanged\n');
    const noConfig = await cp.run('kubectl', ['get', 'nodes']);
    expect(noConfig.stderr).toContain(
      'The connection to the server localhost:8080 was refused - did you specify the right host or port?',
    );
  });

  it('kubectl get nodes -o json has the real API shape; jsonpath and wait work on it', async () => {
    const { cp, admin } = await freshCluster({ join: true });
    const r = await cp.run('kubectl', ['--kubeconfig', admin, 'get', 'nodes', '-o', 'json']);
    expect(r.code).toBe(0);
    const list = JSON.parse(r.stdout) as { apiVersion: string; kind: string; items: Record<string, any>[] };
    expect(list).toMatchObject({ apiVersion: 'v1', kind: 'List', metadata: { resourceVersion: '' } });
    expect(list.items.map((n) => n['metadata'].name)).toEqual(['cp1', 'w1']);
    const w1 = list.items[1]!;
    expect(w1).toMatchObject({
      apiVersion: 'v1',
      kind: 'Node',
      metadata: {
        labels: {
          'kubernetes.io/os': 'linux',
          'kubernetes.io/hostname': 'w1',
          'kubernetes.io/arch': 'amd64',
        },
      },
      spec: { podCIDR: '10.244.1.0/24', podCIDRs: ['10.244.1.0/24'] },
      status: {
        addresses: [
          { type: 'InternalIP', address: '10.9.0.3' },
          { type: 'Hostname', address: 'w1' },
        ],
        nodeInfo: { operatingSystem: 'linux', architecture: 'amd64', kubeletVersion: 'v1.31.2' },
      },
    });
    expect(w1['status'].conditions).toContainEqual(
      expect.objectContaining({ type: 'Ready', status: 'False', reason: 'KubeletNotReady' }),
    );
    const path = await cp.run('kubectl', [
      '--kubeconfig',
      admin,
      'get',
      'nodes',
      '-o',
      'jsonpath={range .items[*]}{.metadata.name}={.status.conditions[?(@.type=="Ready")].status}{"\\n"}{end}',
    ]);
    expect(path.stdout).toBe('cp1=False\nw1=False\n');
    const timedOut = await cp.run('kubectl', [
      '--kubeconfig',
      admin,
      'wait',
      '--for=condition=Ready',
      'node/w1',
      '--timeout=1s',
    ]);
    expect(timedOut).toMatchObject({
      code: 1,
      stderr: 'error: timed out waiting for the condition on nodes/w1\n',
    });
    const table = await cp.run('kubectl', ['--kubeconfig', admin, 'get', 'nodes']);
    expect(table.stdout.split('\n')[0]).toMatch(/^NAME\s+STATUS\s+ROLES\s+AGE\s+VERSION$/);
    expect(table.stdout).toMatch(/^cp1\s+NotReady\s+control-plane\s+\S+\s+v1\.31\.2$/m);
  });

  it('kubeadm reset removes the node from the cluster and its files', async () => {
    const { stateDir, worker } = await freshCluster({ join: true });
    const r = await worker.run('kubeadm', ['reset', '-f']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(
      'The reset process does not clean CNI configuration. To do so, you must remove /etc/cni/net.d',
    );
    expect((await ClusterState.open(stateDir).nodes()).map((n) => n.metadata.name)).toEqual(['cp1']);
    const version = await worker.run('kubeadm', ['version', '-o', 'short']);
    expect(version.stdout).toBe('v1.31.2\n');
  });
});

describe('what kubeadm reset leaves of the pod network, and ip', () => {
  let stateDir: string;
  let cp: FakeHost;
  let worker: FakeHost;

  /** A join command from cp for the worker (a fresh token each time). */
  async function joinArgs(): Promise<string[]> {
    return (await printJoinCommand(cp)).slice(1);
  }

  beforeAll(async () => {
    stateDir = await testTempDir('state');
    cp = await fakeHost(stateDir, 'cp1', '10.9.0.2');
    worker = await fakeHost(stateDir, 'w1', '10.9.0.3');
    expect(
      (
        await cp.run('kubeadm', [
          'init',
          '--pod-network-cidr',
          '10.244.0.0/16',
          '--control-plane-endpoint',
          '10.9.0.2',
        ])
      ).code,
    ).toBe(0);
    const state = ClusterState.open(stateDir);
    for (const o of renderManifestObjects('kube-flannel', labManifestVars())) await state.applyObject(o);
    expect((await worker.run('kubeadm', await joinArgs())).code).toBe(0);
  });

  afterAll(async () => {
    await Promise.all([stateDir, cp.root, worker.root].map((d) => rm(d, { recursive: true, force: true })));
  });

  it('ip answers only for the links pod networking makes, and only the forms cleanup-linux uses', async () => {
    expect(await worker.run('ip', ['link', 'show', 'cni0'])).toEqual({
      code: 1,
      stdout: '',
      stderr: 'Device "cni0" does not exist.\n',
    });
    for (const args of [
      ['addr', 'show'],
      ['link', 'show', 'eth0'],
      ['link', 'show'],
      ['link', 'set', 'cni0', 'down'],
    ]) {
      const r = await worker.run('ip', args);
      expect(r.code, args.join(' ')).toBe(1);
      expect(r.stderr).toContain(`kubemix lab stand-in for ip: not simulated: ip ${args.join(' ')}`);
    }
  });

  it('reset leaves cni0 with the old gateway, flannel.<vni>, /var/lib/cni and /run/flannel; a new join carries cni0', async () => {
    expect((await worker.run('kubeadm', ['reset', '-f'])).code).toBe(0);
    // w1 joined second: 10.244.1.0/24, gateway .1 on cni0.
    const show = await worker.run('ip', ['link', 'show', 'cni0']);
    expect(show.code).toBe(0);
    expect(show.stdout).toMatch(
      /^\d+: cni0: <BROADCAST,MULTICAST,UP,LOWER_UP> mtu 1450 .*\n {4}link\/ether /,
    );
    expect((await worker.run('ip', ['link', 'show', 'flannel.4096'])).code).toBe(0);
    expect(await readFile(join(worker.root, 'run/flannel/subnet.env'), 'utf8')).toContain(
      'FLANNEL_SUBNET=10.244.1.1/24',
    );
    expect(await readdir(join(worker.root, 'var/lib/cni/networks/cbr0'))).toContain('last_reserved_ip.0');

    // Joining again makes w1 the third node (10.244.2.0/24): its pods hit the leftover bridge.
    expect((await worker.run('kubeadm', await joinArgs())).code).toBe(0);
    const state = ClusterState.open(stateDir);
    expect((await state.read()).nodes.find((n) => n.name === 'w1')?.leftovers).toEqual({
      cni0: '10.244.1.1/24',
    });
    const sandbox = (await state.events()).filter((e) => e.reason === 'FailedCreatePodSandBox');
    expect(sandbox.length).toBeGreaterThan(0);
    expect(sandbox[0]!.message).toContain(
      'failed to set bridge addr: "cni0" already has an IP address different from 10.244.2.1/24',
    );

    expect((await worker.run('ip', ['link', 'delete', 'cni0'])).code).toBe(0);
    expect(await worker.run('ip', ['link', 'delete', 'cni0'])).toEqual({
      code: 1,
      stdout: '',
      stderr: 'Cannot find device "cni0"\n',
    });
  });
});
