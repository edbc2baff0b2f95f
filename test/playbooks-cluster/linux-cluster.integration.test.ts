import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ClusterLab, startClusterLab } from '../../fixtures/lab/cluster-lab.js';
import { compiledStandinsDir } from '../../fixtures/lab/install-standins.js';
import { readFlannelNetConf } from '../../src/manifests/index.js';
import { DEFAULT_KUBERNETES } from '../helpers/kubernetes-test-versions.js';
import { failures, LAB_FSTAB, labPlanVars, labSsh, runClusterPlays } from './helpers.js';

const ready = (node: { status?: unknown }) =>
  (node.status as { conditions: { type: string; status: string }[] }).conditions.find(
    (c) => c.type === 'Ready',
  )?.status;

if (!existsSync(join(compiledStandinsDir(), 'kubeadm.js')))
  throw new Error('the lab stand-ins are not compiled: run npm run build first');

const SEED_FSTAB = [
  {
    name: 'seed a swap entry where the lab keeps fstab',
    copy: { content: 'UUID=1234 / ext4 defaults 0 1\n/swap.img none swap sw 0 0\n', dest: LAB_FSTAB },
  },
];

async function secretsOf(lab: ClusterLab): Promise<string[]> {
  const state = await lab.cluster.read();
  const c = state.cluster!;
  return [
    ...c.tokens.map((t) => t.token),
    ...(c.certificateKey ? [c.certificateKey.key] : []),
    c.adminCredential,
  ];
}

/** Builds 1 controller + 1 worker on a 2-host lab: prepare, init, flannel, join. */
function buildCluster(lab: ClusterLab, vars: Record<string, unknown>) {
  return runClusterPlays(
    lab,
    [
      { file: 'seed fstab', tasks: SEED_FSTAB, hosts: ['lab-01', 'lab-02'] },
      { file: 'prepare-linux.yml', hosts: ['lab-01', 'lab-02'] },
      { file: 'init-control-plane.yml', hosts: ['lab-01'] },
      { file: 'install-flannel.yml', hosts: ['lab-01'] },
      {
        file: 'join-linux-workers.yml',
        hosts: ['lab-02'],
        vars: { outputs: { join_command: '{{ hostvars[first_controller].join_command.stdout }}' } },
      },
    ],
    vars,
  );
}

// The cluster is built once, in beforeAll; each test only reads it (re-running init changes
// nothing, which is what it checks). cleanup-linux, which destroys it, has a cluster of its own.
describe('Linux cluster playbooks on lab hosts: 1 controller + 1 worker', () => {
  let lab: ClusterLab;
  let vars: Record<string, unknown>;
  let built: Awaited<ReturnType<typeof buildCluster>>;
  beforeAll(async () => {
    lab = await startClusterLab({ count: 2 });
    vars = await labPlanVars(lab, ['lab-01']);
    built = await buildCluster(lab, vars);
  });
  afterAll(async () => {
    await lab?.stop();
  });

  it('prepares, initialises, installs flannel and joins the worker; the join token never shows', async () => {
    expect(failures(built)).toBe('');
    const { result, log } = built;
    expect(result.exitCode).toBe(0);

    const nodes = await lab.cluster.nodes();
    expect(nodes.map((n) => [n.metadata.name, ready(n)])).toEqual([
      ['lab-01', 'True'],
      ['lab-02', 'True'],
    ]);
    expect(nodes[0]!.metadata.labels).toHaveProperty('node-role.kubernetes.io/control-plane');
    const objects = Object.values((await lab.cluster.read()).objects);
    const netConf = readFlannelNetConf(objects, 'kube-flannel-cfg');
    expect(netConf).toMatchObject({ backend: 'vxlan', vni: 4096, port: 4789, network: '10.244.0.0/16' });

    const adminConf = await readFile(join(String(vars['cluster_dir']), 'admin.conf'), 'utf8');
    expect(adminConf).toContain(`server: https://${String(vars['control_plane_endpoint'])}`);

    for (const secret of await secretsOf(lab)) expect(log).not.toContain(secret);
    // The join runs from a configuration file (0600, removed after): its command line carries no
    // secret and stays readable.
    expect(log).toContain('kubeadm join --config /etc/kubernetes/kubemix/kubeadm-join.yaml');
  });

  it('left the hosts prepared: modules, sysctls, swap off, held pinned packages, SystemdCgroup', async () => {
    const t = labSsh(lab, lab.hosts[1]!);
    try {
      const run = async (command: string) => (await t.exec({ command })).stdout;
      expect(await run('cat /etc/modules-load.d/k8s.conf')).toMatch(/^overlay\nbr_netfilter$/m);
      expect(await run('sysctl -n net.ipv4.ip_forward net.bridge.bridge-nf-call-iptables')).toBe('1\n1\n');
      expect(await run('swapon --show')).toBe('');
      expect(await run(`cat ${LAB_FSTAB}`)).toBe(
        'UUID=1234 / ext4 defaults 0 1\n# /swap.img none swap sw 0 0\n',
      );
      expect(await run("dpkg-query -W -f='${Version}' kubelet")).toBe(`${DEFAULT_KUBERNETES}-1.1`);
      expect((await run('apt-mark showhold')).split('\n').sort()).toEqual([
        '',
        'kubeadm',
        'kubectl',
        'kubelet',
      ]);
      expect(await run('cat /etc/containerd/config.toml')).toContain('SystemdCgroup = true');
      expect(await run('systemctl is-active containerd kubelet')).toBe('active\nactive\n');
      expect(await run('ls /etc/apt/sources.list.d/')).toBe('kubernetes.list\n');
    } finally {
      await t.close();
    }
  });

  it('re-running init-control-plane does not re-initialise the cluster', async () => {
    const before = (await lab.cluster.cluster())!.clusterId;
    const run = await runClusterPlays(lab, [{ file: 'init-control-plane.yml', hosts: ['lab-01'] }], vars);
    expect(failures(run)).toBe('');
    const { result } = run;
    expect((await lab.cluster.cluster())!.clusterId).toBe(before);
    const init = result.records.find((r) => r.task === 'kubeadm init on the first controller');
    expect(init?.status).toBe('ok');
  });
});

describe('Linux cluster playbooks on lab hosts: cleanup', () => {
  let lab: ClusterLab;
  let vars: Record<string, unknown>;
  beforeAll(async () => {
    lab = await startClusterLab({ count: 2 });
    vars = await labPlanVars(lab, ['lab-01']);
    expect(failures(await buildCluster(lab, vars))).toBe('');
  });
  afterAll(async () => {
    await lab?.stop();
  });

  it('cleanup-linux resets every node and removes the CNI config and kubeconfigs', async () => {
    const run = await runClusterPlays(
      lab,
      [{ file: 'cleanup-linux.yml', hosts: ['lab-02', 'lab-01'] }],
      vars,
    );
    expect(failures(run)).toBe('');
    expect(await lab.cluster.cluster()).toBeUndefined();
    const t = labSsh(lab, lab.hosts[0]!);
    try {
      const r = await t.exec({
        command: 'ls -A /etc/kubernetes /etc/cni; ls -d "$HOME/.kube" 2>&1; systemctl is-active kubelet',
      });
      expect(r.stdout).toMatch(/\/etc\/cni:\n\n?.*No such file or directory\ninactive/s);
      expect(r.stdout).not.toContain('admin.conf');
    } finally {
      await t.close();
    }
  });
});

describe('Linux cluster playbooks on lab hosts: 3 controllers', () => {
  let lab: ClusterLab;
  afterAll(async () => {
    await lab?.stop();
  });

  it('joins the other controllers as control planes with the uploaded certificate key', async () => {
    lab = await startClusterLab({ count: 3 });
    const controllers = ['lab-01', 'lab-02', 'lab-03'];
    const vars = await labPlanVars(lab, controllers);
    const run = await runClusterPlays(
      lab,
      [
        { file: 'prepare-linux.yml', hosts: controllers },
        { file: 'init-control-plane.yml', hosts: controllers },
        { file: 'install-flannel.yml', hosts: ['lab-01'] },
      ],
      vars,
    );
    expect(failures(run)).toBe('');
    const { log } = run;
    // The other controllers join one at a time (throttle: 1): the API lists them in join order.
    const nodes = (await lab.cluster.nodes()).sort((a, b) => a.metadata.name.localeCompare(b.metadata.name));
    expect(
      nodes.map((n) => [
        n.metadata.name,
        ready(n),
        'node-role.kubernetes.io/control-plane' in (n.metadata.labels ?? {}),
      ]),
    ).toEqual([
      ['lab-01', 'True', true],
      ['lab-02', 'True', true],
      ['lab-03', 'True', true],
    ]);
    for (const secret of await secretsOf(lab)) expect(log).not.toContain(secret);
    expect(log).toContain('kubeadm join --config /etc/kubernetes/kubemix/kubeadm-join.yaml');
    expect(existsSync(join(String(vars['cluster_dir']), 'admin.conf'))).toBe(true);
  });
});
