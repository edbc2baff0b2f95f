import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeLabSpec } from '../../fixtures/cluster-lab/lab-spec.js';
import { type ClusterLab, startClusterLab } from '../../fixtures/lab/cluster-lab.js';
import { readFlannelNetConf } from '../../src/manifests/index.js';
import { kubemix, tempClusterDir } from './helpers.js';

// `kubemix up` end to end on lab hosts (real sshd, Kubernetes stand-ins): the CLI, the plan,
// the engine, the SSH transport and the cluster playbooks together.
let lab: ClusterLab;

beforeAll(async () => {
  lab = await startClusterLab({ count: 4 });
});

afterAll(async () => {
  await lab?.stop();
});

describe('a Linux cluster from one command', () => {
  it('builds 1 controller + 1 worker, stopping before the tasks not built yet', async () => {
    const dir = await tempClusterDir();
    const spec = await writeLabSpec(dir, {
      name: 'linux-lab',
      linuxHosts: lab.hosts.slice(0, 2),
      controllers: 1,
      knownHostsPath: lab.knownHostsPath,
      privateKeyPath: lab.privateKeyPath,
    });
    const clusterDir = join(dir, 'cluster');
    const up = await kubemix(['up', spec, '--cluster-dir', clusterDir, '--stop-before', 'verify']);
    expect(up.stderr).toBe('');
    expect(up.exitCode).toBe(0);
    for (const task of [
      'prepare-provider',
      'wait-for-hosts',
      'prepare-linux',
      'init-control-plane',
      'install-flannel',
      'join-linux-workers',
    ]) {
      expect(up.stdout).toContain(`DONE  ${task}`);
    }
    const nodes = await lab.cluster.nodes();
    expect(
      nodes.map((n) => [n.metadata.name, n.status?.conditions?.find((c) => c.type === 'Ready')?.status]),
    ).toEqual([
      ['lab-01', 'True'],
      ['lab-02', 'True'],
    ]);
    const flannel = readFlannelNetConf(
      await lab.cluster.listObjects('ConfigMap', 'kube-flannel'),
      'kube-flannel-cfg',
    );
    expect([flannel.vni, flannel.port, flannel.network]).toEqual([4096, 4789, '10.244.0.0/16']);
    // admin.conf came home; the join token never reached the event log or the state file.
    const admin = await readFile(join(clusterDir, 'admin.conf'), 'utf8');
    expect(admin).toContain('server: https://');
    const tokens = (await lab.cluster.listTokens()).map((t) => t.token);
    const state = await readFile(join(clusterDir, 'state.json'), 'utf8');
    for (const token of tokens) {
      expect(up.stdout).not.toContain(token);
      expect(state).not.toContain(token);
    }
    // A second run has nothing left to do before verify.
    const again = await kubemix(['up', spec, '--cluster-dir', clusterDir, '--stop-before', 'verify']);
    expect(again.exitCode).toBe(0);
    expect(again.stdout).toContain('SKIP  init-control-plane (already-done)');

    // down: kubeadm reset on every node; the lab's cluster forgets them.
    const down = await kubemix(['down', spec, '--cluster-dir', clusterDir]);
    expect(down.stderr).toBe('');
    expect(down.exitCode).toBe(0);
    expect(await lab.cluster.nodes()).toEqual([]);
  });

  it('stops after each task in turn and resumes to the end', async () => {
    const dir = await tempClusterDir();
    const spec = await writeLabSpec(dir, {
      name: 'stepwise',
      linuxHosts: lab.hosts.slice(0, 2),
      controllers: 1,
      knownHostsPath: lab.knownHostsPath,
      privateKeyPath: lab.privateKeyPath,
    });
    const clusterDir = join(dir, 'cluster');
    const order = [
      'prepare-provider',
      'wait-for-hosts',
      'prepare-linux',
      'init-control-plane',
      'install-flannel',
      'join-linux-workers',
    ];
    for (const [index, task] of order.entries()) {
      const run = await kubemix(['up', spec, '--cluster-dir', clusterDir, '--stop-after', task]);
      expect(run.stderr).toBe('');
      expect(run.exitCode).toBe(0);
      expect(run.stdout).toContain(`DONE  ${task}`);
      // Only this task ran: everything before it was done by the earlier runs.
      for (const earlier of order.slice(0, index))
        expect(run.stdout).toContain(`SKIP  ${earlier} (already-done)`);
      const state = JSON.parse(await readFile(join(clusterDir, 'state.json'), 'utf8')) as {
        tasks: Record<string, { status: string }>;
      };
      for (const later of order.slice(index + 1))
        expect(state.tasks[later]?.status ?? 'pending').not.toBe('done');
    }
    expect((await lab.cluster.nodes()).length).toBe(2);
    const down = await kubemix(['down', spec, '--cluster-dir', clusterDir]);
    expect(down.exitCode).toBe(0);
  });

  it('builds three controllers behind one endpoint, plus a worker', async () => {
    const dir = await tempClusterDir();
    const first = lab.hosts[0]!;
    const spec = await writeLabSpec(dir, {
      name: 'ha-lab',
      linuxHosts: lab.hosts.slice(0, 4),
      controllers: 3,
      endpoint: `${first.address}:6443`,
      knownHostsPath: lab.knownHostsPath,
      privateKeyPath: lab.privateKeyPath,
    });
    const clusterDir = join(dir, 'cluster');
    const up = await kubemix(['up', spec, '--cluster-dir', clusterDir, '--stop-before', 'verify']);
    expect(up.stderr).toBe('');
    expect(up.exitCode).toBe(0);
    const nodes = await lab.cluster.nodes();
    const controlPlanes = nodes.filter(
      (n) => 'node-role.kubernetes.io/control-plane' in (n.metadata.labels ?? {}),
    );
    expect(controlPlanes.map((n) => n.metadata.name).sort()).toEqual(['lab-01', 'lab-02', 'lab-03']);
    expect(nodes.map((n) => n.metadata.name)).toContain('lab-04');
    expect(nodes.every((n) => n.status?.conditions?.find((c) => c.type === 'Ready')?.status === 'True')).toBe(
      true,
    );
    const down = await kubemix(['down', spec, '--cluster-dir', clusterDir]);
    expect(down.exitCode).toBe(0);
  });
});
