import { describe, expect, it } from 'vitest';
import { taskHash } from '../../src/engine/index.js';
import {
  ancestorsOf,
  buildGraph,
  buildPlan,
  buildTeardownPlan,
  formatPlan,
  topologicalOrder,
} from '../../src/plan/index.js';
import { loadClusterPlaybooks, playbooksDir } from '../../src/playbook/cluster-playbooks.js';
import { type ClusterSpecInput, clusterSpecSchema } from '../../src/spec/schema.js';
import { loadVersions } from '../../src/versions/versions.js';

const versions = loadVersions();
/** A Windows Server ISO for libvirt specs with Windows workers (the spec rules require one). */
const WINDOWS_ISO = { source: 'https://isos.example/ws2022.iso', sha256: 'a'.repeat(64) };

function staticSpec(overrides: Partial<ClusterSpecInput> = {}): ClusterSpecInput {
  return {
    name: 'lab',
    provider: {
      type: 'static',
      hosts: [
        {
          name: 'cp1',
          address: '10.0.0.11',
          group: 'control-plane',
          credentials: { user: 'root', privateKey: { file: '~/.ssh/id_ed25519' } },
        },
        { name: 'lw1', address: '10.0.0.12', group: 'linux' },
        {
          name: 'win1',
          address: '10.0.0.13',
          group: 'windows',
          credentials: { user: 'Administrator', password: { env: 'WIN_PASSWORD' } },
        },
      ],
    },
    nodes: {
      controlPlane: { count: 1 },
      workers: [
        { name: 'linux', os: 'linux', count: 1 },
        { name: 'windows', os: 'windows', count: 1 },
      ],
    },
    ...overrides,
  };
}

const plan = (input: ClusterSpecInput) =>
  buildPlan({ spec: clusterSpecSchema.parse(input), versions, clusterDir: `/clusters/${input.name}` });
const task = (p: ReturnType<typeof plan>, name: string) => {
  const found = p.tasks.find((t) => t.name === name);
  if (!found) throw new Error(`no task ${name}`);
  return found;
};

describe('buildPlan', () => {
  it('builds the static mixed-cluster graph with every phase in dependency order', () => {
    const p = plan(staticSpec());
    expect(topologicalOrder(p.tasks).map((t) => t.name)).toEqual([
      'prepare-provider',
      'wait-for-hosts',
      'prepare-linux',
      'prepare-windows',
      'init-control-plane',
      'install-flannel',
      'join-windows-workers',
      'join-linux-workers',
      'install-windows-networking',
      'verify',
    ]);
  });

  it('does not make Windows preparation wait for control-plane init', () => {
    const p = plan(staticSpec());
    const prepAncestors = ancestorsOf(buildGraph(p), 'prepare-windows');
    expect(prepAncestors.has('init-control-plane')).toBe(false);
    expect(prepAncestors.has('prepare-linux')).toBe(false);
    expect([...prepAncestors].sort()).toEqual(['prepare-provider', 'wait-for-hosts']);
    expect(task(p, 'join-windows-workers').needs.sort()).toEqual(['init-control-plane', 'prepare-windows']);
  });

  it('runs every task that waits for a node to be Ready after install-flannel (a node is Ready only with its CNI)', async () => {
    // A kubelet reports NetworkReady=false until a CNI config exists, so `kubectl wait
    // --for=condition=Ready node/...` can only end after flannel is installed: such a task that
    // does not need install-flannel hangs under --stop-after (it did for join-linux-workers).
    const p = buildPlan({
      spec: clusterSpecSchema.parse(staticSpec()),
      versions,
      playbooks: await loadClusterPlaybooks(),
      playbookDir: playbooksDir(),
    });
    const graph = buildGraph(p);
    const waiters = p.tasks.filter((t) => JSON.stringify(t.steps).includes('condition=Ready node'));
    expect(waiters.map((t) => t.name)).toContain('join-linux-workers');
    for (const waiter of waiters) {
      const runsAfterFlannel =
        waiter.name === 'install-flannel' || ancestorsOf(graph, waiter.name).has('install-flannel');
      expect(runsAfterFlannel, waiter.name).toBe(true);
    }
  });

  it('targets the right hosts per task', () => {
    const p = plan(staticSpec());
    expect(task(p, 'prepare-provider').hosts).toEqual(['localhost']);
    expect(task(p, 'wait-for-hosts').hosts).toEqual(['cp1', 'lw1', 'win1']);
    expect(task(p, 'prepare-linux').hosts).toEqual(['cp1', 'lw1']);
    expect(task(p, 'prepare-windows').hosts).toEqual(['win1']);
    expect(task(p, 'install-flannel').hosts).toEqual(['cp1']);
    const win = p.hosts.find((h) => h.name === 'win1');
    expect(win).toMatchObject({
      os: 'windows',
      connection: 'winrm',
      port: 5985,
      windowsVersion: '2022',
      hostKeyPolicy: 'strict',
    });
  });

  it('has nothing to prepare for static hosts: their credentials are checked when the plan is made', () => {
    expect(task(plan(staticSpec()), 'prepare-provider').steps).toEqual([]);
  });

  it('marks tasks whose steps are not built yet instead of pretending', () => {
    const p = plan(staticSpec());
    expect(task(p, 'prepare-provider').implemented).toBe(true);
    expect(task(p, 'wait-for-hosts').implemented).toBe(true);
    expect(task(p, 'init-control-plane').implemented).toBe(false);
  });

  it('leaves out Windows and Linux-worker tasks when there are no such workers', () => {
    const p = plan(
      staticSpec({
        provider: { type: 'static', hosts: [{ name: 'cp1', address: '10.0.0.11', group: 'control-plane' }] },
        nodes: { controlPlane: { count: 1 }, workers: [] },
      }),
    );
    const names = p.tasks.map((t) => t.name);
    expect(names).not.toContain('prepare-windows');
    expect(names).not.toContain('join-linux-workers');
    expect(task(p, 'verify').needs).toEqual(['install-flannel']);
  });

  it('plans libvirt guests on the local hypervisor with Kubeinit-style addresses, controllers first', () => {
    const p = plan({
      name: 'k8s-libvirt-1-1-1',
      provider: { type: 'libvirt' },
      nodes: { controlPlane: { count: 1 }, workers: [{ name: 'linux-workers', os: 'linux', count: 1 }] },
    });
    expect(p.hosts.map((h) => [h.name, h.address, h.role])).toEqual([
      ['hypervisor-01', 'localhost', 'hypervisor'],
      ['controller-01', '10.0.0.11', 'control-plane'],
      ['linux-workers-01', '10.0.0.12', 'worker'],
    ]);
    expect(task(p, 'create-hosts').hosts).toEqual(['hypervisor-01']);
    expect(task(p, 'create-hosts').implemented).toBe(true);
    expect(task(p, 'wait-for-hosts').needs).toEqual(['create-hosts']);
    expect(p.hosts[1]?.hostKeyPolicy).toBe('accept-new');
    expect(p.hosts.some((h) => h.name === 'localhost')).toBe(false);
  });

  it('plans libvirt provider work as engine tasks on the hypervisors that get guests', () => {
    const p = plan({
      name: 'lab',
      provider: { type: 'libvirt', network: { cidr: '10.213.0.0/24' } },
      nodes: { controlPlane: { count: 1 }, workers: [{ name: 'linux', os: 'linux', count: 1 }] },
    });
    expect(task(p, 'prepare-provider').steps.map((s) => s.module)).toEqual([
      'libvirt_preflight',
      'debug',
      'libvirt_images',
    ]);
    expect(task(p, 'create-network').steps.map((s) => s.module)).toEqual(['libvirt_network']);
    const guests = (
      task(p, 'create-hosts').steps[0]!.args['hypervisors'] as Record<string, Array<Record<string, unknown>>>
    )['hypervisor-01'];
    expect(guests?.map((g) => [g['domain'], g['ip'], g['machine']])).toEqual([
      ['lab.controller-01', '10.213.0.11', 'pc'],
      ['lab.linux-01', '10.213.0.12', 'pc'],
    ]);
    // Guests log in with the cluster key kubemix generates into the cluster directory.
    expect(p.hosts.find((h) => h.name === 'controller-01')?.credentials).toEqual({
      user: 'root',
      privateKey: { file: '/clusters/lab/id_ed25519' },
    });
    // Per host, only the steps of its OS run: Linux guests wait for SSH and cloud-init.
    expect(
      task(p, 'wait-for-hosts')
        .steps.filter((s) => s.os !== 'windows')
        .map((s) => s.args['cmd'] ?? s.module),
    ).toEqual(['wait_for_connection', 'probe', 'cloud-init status --wait']);
  });

  it("waits for a libvirt guest's connection for the spec's bootTimeoutMinutes, 15 minutes unless it says", () => {
    const connectionWait = (provider: Record<string, unknown>) =>
      task(
        plan({
          name: 'lab',
          provider: { type: 'libvirt', ...provider },
          nodes: { controlPlane: { count: 1 } },
        }),
        'wait-for-hosts',
      ).steps.find((s) => s.module === 'wait_for_connection')?.args['timeout'];
    expect(connectionWait({})).toBe(900);
    expect(connectionWait({ bootTimeoutMinutes: 2 })).toBe(120);
  });

  it('plans EC2 nodes without an address: create-hosts assigns it', () => {
    const p = plan({
      name: 'cloud',
      provider: { type: 'ec2', region: 'eu-west-1', operatorCidr: '198.51.100.0/24' },
      nodes: { controlPlane: { count: 1 } },
    });
    expect(p.hosts.find((h) => h.name === 'controller-01')?.address).toBe('');
    expect(formatPlan(p)).toContain('controller-01  control-plane linux, ssh (assigned at create-hosts)');
  });

  it('gives Windows nodes of a hyperV group `hyperv: true` (prepare-windows reads it), whatever the provider', () => {
    const workers: NonNullable<ClusterSpecInput['nodes']>['workers'] = [
      { name: 'windows', os: 'windows', count: 1, hyperV: true },
      { name: 'win-plain', os: 'windows', count: 1 },
    ];
    const hyperv = (p: ReturnType<typeof plan>) =>
      p.hosts.filter((h) => h.os === 'windows').map((h) => [h.group, h.vars?.['hyperv']]);
    const statics = staticSpec();
    const staticPlan = plan({
      ...statics,
      provider: {
        type: 'static',
        hosts: [
          ...(statics.provider as { hosts: object[] }).hosts.filter(
            (h) => (h as { group: string }).group !== 'linux',
          ),
          { name: 'win2', address: '10.0.0.14', group: 'win-plain' },
        ],
      } as ClusterSpecInput['provider'],
      nodes: { controlPlane: { count: 1 }, workers },
    });
    expect(hyperv(staticPlan)).toEqual([
      ['windows', true],
      ['win-plain', undefined],
    ]);
    const libvirtPlan = plan({
      name: 'lab',
      provider: { type: 'libvirt', images: { windows: WINDOWS_ISO } },
      nodes: { controlPlane: { count: 1 }, workers },
    });
    expect(hyperv(libvirtPlan)).toEqual([
      ['windows', true],
      ['win-plain', undefined],
    ]);
    // The Windows groups' kubelet reservations reach libvirt guests too, as static hosts.
    expect(libvirtPlan.hosts.find((h) => h.group === 'windows')?.vars?.['kubelet_extra_args']).toEqual(
      staticPlan.hosts.find((h) => h.group === 'windows')?.vars?.['kubelet_extra_args'],
    );
  });

  it("gives every node its group's kubelet arguments, on machines kubemix creates too", () => {
    const nodes = {
      controlPlane: { count: 1 as const, kubeletExtraArgs: ['--max-pods=50'] },
      workers: [
        { name: 'linux', os: 'linux' as const, count: 1, kubeletExtraArgs: ['--node-labels=tier=a'] },
        { name: 'windows', os: 'windows' as const, count: 1 },
      ],
    };
    const argsOf = (p: ReturnType<typeof plan>) =>
      p.hosts
        .filter((h) => h.role !== 'hypervisor' && h.role !== 'controller')
        .map((h) => h.vars?.['kubelet_extra_args']);
    // As {name, value} pairs, the form both kubeadm templates render (src/spec/kubelet-args.ts).
    const expected = [
      [{ name: 'max-pods', value: '50' }],
      [{ name: 'node-labels', value: 'tier=a' }],
      expect.arrayContaining([{ name: 'windows-priorityclass', value: 'ABOVE_NORMAL_PRIORITY_CLASS' }]),
    ];
    expect(
      argsOf(plan({ name: 'lv', provider: { type: 'libvirt', images: { windows: WINDOWS_ISO } }, nodes })),
    ).toEqual(expected);
    expect(
      argsOf(
        plan({
          name: 'aws',
          provider: { type: 'ec2', region: 'eu-west-1', operatorCidr: '203.0.113.0/24' },
          nodes,
        } as ClusterSpecInput),
      ),
    ).toEqual(expected);
    expect(argsOf(plan(staticSpec({ nodes })))).toEqual(expected);
  });

  it('is pure: the same spec gives the same plan', () => {
    expect(plan(staticSpec())).toEqual(plan(staticSpec()));
  });

  it('carries the network settings both sides need into plan vars', () => {
    const p = plan(staticSpec());
    expect(p.vars).toMatchObject({
      pod_cidr: '10.244.0.0/16',
      service_cidr: '10.96.0.0/12',
      flannel_vni: 4096,
      flannel_port: 4789,
    });
    expect(p.vars['kubernetes_version']).toBe(versions['kubernetes']);
  });

  it("gives every Windows version of the cluster its workload, and each Windows node its version's", () => {
    const base = staticSpec();
    const hosts = (base.provider as { hosts: { name: string; group: string }[] }).hosts;
    const p = plan({
      ...base,
      provider: {
        type: 'static',
        hosts: [...hosts, { name: 'win2', address: '10.0.0.14', group: 'windows-2019' }],
      } as ClusterSpecInput['provider'],
      nodes: {
        controlPlane: { count: 1 },
        workers: [
          { name: 'linux', os: 'linux', count: 1 },
          { name: 'windows', os: 'windows', count: 1 },
          { name: 'windows-2019', os: 'windows', windowsVersion: '2019', count: 1 },
        ],
      },
    });
    const workloads = p.vars['windows_workloads'] as { version: string; image: string }[];
    expect(workloads.map((w) => [w.version, w.image])).toEqual([
      ['2019', 'mcr.microsoft.com/windows/servercore:ltsc2019'],
      ['2022', 'mcr.microsoft.com/windows/servercore:ltsc2022'],
    ]);
    const byNode = p.vars['windows_workload_by_node'] as Record<string, { version: string }>;
    expect(Object.entries(byNode).map(([node, w]) => [node, w.version])).toEqual([
      ['win1', '2022'],
      ['win2', '2019'],
    ]);
    expect(
      plan(staticSpec({ nodes: { controlPlane: { count: 1 }, workers: [] } })).vars['windows_workloads'],
    ).toEqual([]);
  });

  it('formats a readable per-host plan', () => {
    const text = formatPlan(plan(staticSpec()));
    expect(text).toContain('win1');
    expect(text).toContain('prepare-windows (after wait-for-hosts)');
    expect(text).toContain('steps: not implemented yet');
  });

  it('builds a teardown plan with cleanup on every node', () => {
    const down = buildTeardownPlan({ spec: clusterSpecSchema.parse(staticSpec()), versions });
    expect(down.tasks.map((t) => t.name)).toEqual(['cleanup']);
    expect(down.tasks[0]?.hosts).toEqual(['cp1', 'lw1', 'win1']);
  });

  it('takes task steps from the cluster playbooks, per OS where a task spans both', () => {
    const step = (name: string) => ({ name, module: 'command', args: { cmd: name } });
    const spec = clusterSpecSchema.parse(staticSpec());
    const withBooks = buildPlan({
      spec,
      versions,
      playbooks: {
        'prepare-linux': [step('kernel modules')],
        'cleanup-linux': [step('reset linux')],
        'cleanup-windows': [step('reset windows')],
      },
      playbookDir: '/pb',
    });
    expect(task(withBooks, 'prepare-linux')).toMatchObject({
      implemented: true,
      steps: [{ name: 'kernel modules' }],
    });
    expect(task(withBooks, 'prepare-windows').implemented).toBe(false);
    expect(withBooks.vars['playbook_dir']).toBe('/pb');
    const down = buildTeardownPlan({
      spec,
      versions,
      playbooks: { 'cleanup-linux': [step('reset linux')], 'cleanup-windows': [step('reset windows')] },
    });
    expect(down.tasks[0]?.steps.map((s) => [s.name, s.os])).toEqual([
      ['reset linux', 'linux'],
      ['reset windows', 'windows'],
    ]);
    // Half a task is not a task: with only the Linux file, cleanup of a mixed cluster is not built.
    const half = buildTeardownPlan({ spec, versions, playbooks: { 'cleanup-linux': [step('reset linux')] } });
    expect(half.tasks[0]?.implemented).toBe(false);
  });

  it('gives the playbooks the API endpoint and the first controller', () => {
    const p = plan(staticSpec());
    expect(p.vars).toMatchObject({
      control_plane_endpoint: '10.0.0.11:6443',
      api_server_host: '10.0.0.11',
      api_server_port: 6443,
      first_controller: 'cp1',
      controller_count: 1,
    });
    const ha = plan({
      ...staticSpec(),
      provider: {
        type: 'static',
        hosts: ['cp1', 'cp2', 'cp3'].map((name, i) => ({
          name,
          address: `10.0.0.${11 + i}`,
          group: 'control-plane',
        })),
      },
      nodes: { controlPlane: { count: 3, endpoint: 'api.lab:8443' }, workers: [] },
    });
    expect(ha.vars).toMatchObject({
      control_plane_endpoint: 'api.lab:8443',
      api_server_host: 'api.lab',
      api_server_port: 8443,
      controller_count: 3,
    });
  });
});

describe('libvirt teardown plan', () => {
  const spec = () =>
    clusterSpecSchema.parse({
      name: 'lab',
      provider: { type: 'libvirt' },
      nodes: { controlPlane: { count: 1 } },
    });
  const resource = (kind: string, name: string, status: 'intended' | 'created' | 'deleted') => ({
    provider: 'libvirt' as const,
    kind,
    name,
    location: 'hypervisor-01',
    status,
  });

  it('destroys what the state recorded on the hypervisors that hold it, then checks for leaks', () => {
    const down = buildTeardownPlan({
      spec: spec(),
      versions,
      resources: [
        resource('domain', 'lab.controller-01', 'intended'),
        resource('network', 'lab.network', 'deleted'),
      ],
    });
    expect(down.tasks.map((t) => [t.name, t.needs, t.hosts])).toEqual([
      ['destroy-hosts', [], ['hypervisor-01']],
      ['destroy-network', ['destroy-hosts'], ['hypervisor-01']],
      ['check-leaks', ['destroy-network'], ['hypervisor-01']],
    ]);
    expect(down.tasks[0]?.steps[0]?.args['recorded']).toEqual({
      'hypervisor-01': ['domain lab.controller-01'],
    });
  });

  it('has nothing to do where nothing was recorded, and a new record changes the plan (a resumed down redoes it)', () => {
    const none = buildTeardownPlan({ spec: spec(), versions, resources: [] });
    expect(none.tasks.every((t) => t.hosts.length === 0)).toBe(true);
    const one = buildTeardownPlan({
      spec: spec(),
      versions,
      resources: [resource('domain', 'lab.controller-01', 'created')],
    });
    const two = buildTeardownPlan({
      spec: spec(),
      versions,
      resources: [
        resource('domain', 'lab.controller-01', 'created'),
        resource('volume', 'lab.controller-01.disk.qcow2', 'intended'),
      ],
    });
    expect(taskHash(one.tasks[0]!)).not.toBe(taskHash(two.tasks[0]!));
  });
});
