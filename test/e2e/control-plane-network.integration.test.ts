import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { writeLabSpec } from '../../fixtures/cluster-lab/lab-spec.js';
import { type ClusterLab, startClusterLab } from '../../fixtures/lab/cluster-lab.js';
import type { KubeObject } from '../../fixtures/lab/cluster-state.js';
import type { InventoryHost } from '../../src/types/inventory.js';
import { loadVersions } from '../../src/versions/versions.js';
import { kubemix, onLabHost, tempClusterDir } from './helpers.js';

// `kubemix up` of HA control planes on lab hosts: the secondary controllers join one at a time
// (kubernetes/kubeadm#2005), and on hosts whose first NIC is a NAT interface with the default
// route (Vagrant, many libvirt setups) every component uses the inventory address.

const labs: ClusterLab[] = [];
const dirs: string[] = [];
afterAll(async () => {
  for (const lab of labs) {
    await lab.stop();
    await rm(lab.dir, { recursive: true, force: true });
  }
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

async function clusterDirFor(): Promise<string> {
  const dir = await tempClusterDir();
  dirs.push(dir);
  return dir;
}

const onHost = (lab: ClusterLab, host: InventoryHost, command: string) => onLabHost(lab, host, command);

const ready = (node: KubeObject) =>
  (node['status'] as { conditions: { type: string; status: string }[] }).conditions.find(
    (c) => c.type === 'Ready',
  )?.status;
/** Rows sorted by their first column: the controllers join one at a time, in either order. */
const byName = <T extends unknown[]>(rows: T[]) =>
  [...rows].sort((a, b) => String(a[0]).localeCompare(String(b[0])));
const internalIp = (node: KubeObject) =>
  (node['status'] as { addresses: { type: string; address: string }[] }).addresses.find(
    (a) => a.type === 'InternalIP',
  )?.address;

describe('secondary control planes', () => {
  it('join one at a time, so no etcd member add meets one still starting', async () => {
    // Each new etcd member stays unstarted for 2 s after its MemberAdd; two joins started
    // together (as before throttle: 1) overlap and the second is refused (state/etcd.ts).
    const lab = await startClusterLab({ count: 3, durations: { 'kubeadm join etcd': 2000 }, scale: 1 });
    labs.push(lab);
    const dir = await clusterDirFor();
    const spec = await writeLabSpec(dir, {
      name: 'ha-serial',
      linuxHosts: lab.hosts,
      controllers: 3,
      endpoint: `${lab.hosts[0]!.address}:6443`,
      knownHostsPath: lab.knownHostsPath,
      privateKeyPath: lab.privateKeyPath,
    });
    const up = await kubemix([
      'up',
      spec,
      '--cluster-dir',
      join(dir, 'cluster'),
      '--stop-after',
      'init-control-plane',
    ]);
    expect(up.stdout).not.toContain('re-configuration failed due to not enough started members');
    expect(up.stderr).toBe('');
    expect(up.exitCode).toBe(0);
    const state = await lab.cluster.read();
    expect(byName(state.etcd?.map((m) => [m.name, m.started]) ?? [])).toEqual([
      ['lab-01', true],
      ['lab-02', true],
      ['lab-03', true],
    ]);
    expect((await lab.cluster.nodes()).map((n) => n.metadata.name).sort()).toEqual([
      'lab-01',
      'lab-02',
      'lab-03',
    ]);
    const down = await kubemix(['down', spec, '--cluster-dir', join(dir, 'cluster')]);
    expect(down.exitCode).toBe(0);
  });
});

describe('a kubelet arg the kubelet does not know', () => {
  it('fails the join at kubelet-start, naming the host, and leaves no join configuration behind', async () => {
    const lab = labs[0]!;
    const dir = await clusterDirFor();
    const spec = await writeLabSpec(dir, {
      name: 'bad-kubelet-arg',
      linuxHosts: lab.hosts.slice(0, 2),
      controllers: 1,
      knownHostsPath: lab.knownHostsPath,
      privateKeyPath: lab.privateKeyPath,
      linuxKubeletExtraArgs: ['--node-nmae=typo'],
    });
    const clusterDir = join(dir, 'cluster');
    const up = await kubemix(['up', spec, '--cluster-dir', clusterDir, '--stop-before', 'verify']);
    expect(up.exitCode).toBe(1);
    expect(up.stdout).toContain('task join-linux-workers failed on host lab-02: step "The node joined"');
    expect(up.stdout).toContain('error execution phase kubelet-start: timed out waiting for the condition');
    expect(await onHost(lab, lab.hosts[1]!, 'systemctl status kubelet')).toContain(
      'failed to parse kubelet flag: unknown flag: --node-nmae',
    );
    expect(await onHost(lab, lab.hosts[1]!, 'ls /etc/kubernetes/kubemix')).toBe('');
    expect((await lab.cluster.nodes()).map((n) => n.metadata.name)).toEqual(['lab-01']);
    const down = await kubemix(['down', spec, '--cluster-dir', clusterDir]);
    expect(down.exitCode).toBe(0);
  });
});

describe('hosts whose default route is a NAT interface', () => {
  it('advertise, register and tunnel on the inventory address, with the spec kubelet args', async () => {
    const lab = await startClusterLab({ count: 4, natInterface: true });
    labs.push(lab);
    const dir = await clusterDirFor();
    const spec = await writeLabSpec(dir, {
      name: 'nat-lab',
      linuxHosts: lab.hosts,
      controllers: 3,
      endpoint: `${lab.hosts[0]!.address}:6443`,
      knownHostsPath: lab.knownHostsPath,
      privateKeyPath: lab.privateKeyPath,
      controlPlaneKubeletExtraArgs: ['--max-pods=60'],
      linuxKubeletExtraArgs: ['--node-labels=tier=batch', '--serialize-image-pulls=false'],
    });
    // The lab really is the trap: every host's default route goes through 10.0.2.15 (the real ip:
    // the lab's ip stand-in answers only the forms cleanup-linux uses).
    expect(await onHost(lab, lab.hosts[3]!, '/sbin/ip route show default')).toContain('dev eth0');

    const up = await kubemix(['up', spec, '--cluster-dir', join(dir, 'cluster'), '--stop-before', 'verify']);
    expect(up.stderr).toBe('');
    expect(up.exitCode).toBe(0);

    const address = new Map(lab.hosts.map((h) => [h.name, h.address]));
    const nodes = await lab.cluster.nodes();
    expect(byName(nodes.map((n) => [n.metadata.name, internalIp(n), ready(n)]))).toEqual(
      lab.hosts.map((h) => [h.name, h.address, 'True']),
    );
    const state = await lab.cluster.read();
    expect(byName(state.etcd?.map((m) => [m.name, m.peerAddress, m.started]) ?? [])).toEqual(
      lab.hosts.slice(0, 3).map((h) => [h.name, h.address, true]),
    );
    expect(
      byName(state.nodes.filter((n) => n.controlPlane).map((n) => [n.name, n.apiServerAddress])),
    ).toEqual(lab.hosts.slice(0, 3).map((h) => [h.name, h.address]));

    // Pods on every node reach each other over flannel's VXLAN: each node's endpoint is its
    // InternalIP (--iface=$(NODE_IP)), not the NAT address every host shares.
    await lab.cluster.applyObject({
      apiVersion: 'apps/v1',
      kind: 'DaemonSet',
      metadata: { name: 'probe', namespace: 'default' },
      spec: {
        selector: { matchLabels: { app: 'probe' } },
        template: {
          metadata: { labels: { app: 'probe' } },
          spec: {
            tolerations: [{ operator: 'Exists' }],
            containers: [
              {
                name: 'web',
                image: loadVersions()['agnhost']!,
                args: ['netexec', '--http-port=80'],
                ports: [{ containerPort: 80 }],
              },
            ],
          },
        },
      },
    });
    const pods = await lab.cluster.pods('default');
    expect(pods).toHaveLength(4);
    for (const from of lab.hosts)
      for (const pod of pods) {
        const podIp = (pod['status'] as { podIP: string }).podIP;
        const result = await lab.cluster.reach({
          from: { node: from.name },
          url: `http://${podIp}/hostname`,
        });
        expect({
          from: from.name,
          pod: pod.metadata.name,
          ok: result.ok,
          why: result.ok ? '' : result.reason,
        }).toEqual({ from: from.name, pod: pod.metadata.name, ok: true, why: '' });
      }

    // The spec's kubelet args reached the kubelets through kubeadm's flags file, beside the node IP
    // (in the order kubeadm writes them: at 1.35+ no --pod-infra-container-image follows).
    const argsOf = (env: string) => /^KUBELET_KUBEADM_ARGS="(.*)"$/m.exec(env)?.[1]?.split(' ') ?? [];
    const controllerFlags = await onHost(lab, lab.hosts[1]!, 'cat /var/lib/kubelet/kubeadm-flags.env');
    expect(controllerFlags).toMatch(/^KUBELET_KUBEADM_ARGS=".*"$/);
    expect(argsOf(controllerFlags)).toEqual(
      expect.arrayContaining(['--max-pods=60', `--node-ip=${address.get('lab-02')}`]),
    );
    const workerFlags = await onHost(lab, lab.hosts[3]!, 'cat /var/lib/kubelet/kubeadm-flags.env');
    expect(argsOf(workerFlags)).toEqual(
      expect.arrayContaining([
        `--node-ip=${address.get('lab-04')}`,
        '--node-labels=tier=batch',
        '--serialize-image-pulls=false',
      ]),
    );
    expect(await onHost(lab, lab.hosts[3]!, 'systemctl is-active kubelet')).toBe('active');
    // The join configurations held the token: none is left behind.
    expect(await onHost(lab, lab.hosts[3]!, 'ls /etc/kubernetes/kubemix')).toBe('');
  });
});
