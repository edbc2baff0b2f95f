import { describe, expect, it } from 'vitest';
import { addNode } from '../../fixtures/lab/state/add-node.js';
import { type PodSpecLike, unfitReason } from '../../fixtures/lab/state/scheduling.js';
import type { StateFile } from '../../fixtures/lab/state/types.js';
import { type KubeObject, linuxWorkload, renderManifestObjects } from '../../src/manifests/index.js';
import { DEFAULT_KUBERNETES, OLDEST_TESTED_KUBERNETES } from '../helpers/kubernetes-test-versions.js';
import { formatManifestProblems, validateManifestObjects } from '../helpers/validate-manifests.js';
import { DEFAULT_VARS } from './manifest-vars.js';

// verify's Linux workload (linux-netexec.yaml.j2) for a cluster with Linux workers and for one
// without: valid against the real schemas, routed to netexec's port, and placed by a scheduler
// (the lab's) on the nodes kubeadm leaves schedulable.
const WITH_WORKERS = { ...DEFAULT_VARS, linux_workload: linuxWorkload(2) };
const WITHOUT_WORKERS = { ...DEFAULT_VARS, linux_workload: linuxWorkload(0) };

interface Container {
  image: string;
  command?: string[];
  args: string[];
  ports: { name: string; containerPort: number; protocol: string }[];
}
const byKind = (objects: KubeObject[], kind: string) => objects.find((o) => o.kind === kind)!;
const template = (o: KubeObject) =>
  (o['spec'] as { template: { metadata: { labels: Record<string, string> }; spec: PodSpecLike } }).template;
const containerOf = (o: KubeObject) => (template(o).spec.containers as unknown as Container[])[0]!;

/** Nodes as kubeadm registers them (labels, the control plane's taint), through the lab's own code. */
function kubeadmNodes() {
  const state = {
    cluster: { kubernetesVersion: DEFAULT_KUBERNETES },
    nodes: [],
    nextNodeIndex: 0,
  } as unknown as StateFile;
  const base = { token: '', caCertHash: '', os: 'linux' as const };
  return {
    controller: addNode(state, { ...base, name: 'cp1', controlPlane: true }),
    worker: addNode(state, { ...base, name: 'w1' }),
    windows: addNode(state, { ...base, name: 'win1', os: 'windows' }),
  };
}

describe.each([
  ['with Linux workers', WITH_WORKERS],
  ['without Linux workers', WITHOUT_WORKERS],
])('linux-netexec %s', (_label, vars) => {
  const objects = renderManifestObjects('linux-netexec', vars);

  it.each([DEFAULT_KUBERNETES, OLDEST_TESTED_KUBERNETES])(
    'is valid against the schemas of Kubernetes %s',
    (version) => {
      const problems = validateManifestObjects(objects, { kubernetesVersion: version });
      expect(problems, formatManifestProblems(problems)).toEqual([]);
    },
  );

  it('runs agnhost netexec from the pinned image on the image entrypoint, serving HTTP on 8080', () => {
    for (const kind of ['DaemonSet', 'Deployment']) {
      const c = containerOf(byKind(objects, kind));
      expect(c.image).toBe(vars.images.agnhost);
      // No command: the image's ENTRYPOINT /agnhost runs the subcommand in args.
      expect(c.command).toBeUndefined();
      expect(c.args).toEqual(['netexec', '--http-port=8080', '--udp-port=8081']);
    }
  });

  it('routes the NodePort Service to the endpoint pods’ netexec port, not to the client', () => {
    const service = byKind(objects, 'Service')['spec'] as {
      type: string;
      selector: Record<string, string>;
      ports: { port: number; targetPort: string }[];
    };
    expect(service.type).toBe('NodePort');
    const ds = byKind(objects, 'DaemonSet');
    const client = byKind(objects, 'Deployment');
    const selects = (o: KubeObject) =>
      Object.entries(service.selector).every(([k, v]) => template(o).metadata.labels[k] === v);
    expect([selects(ds), selects(client)]).toEqual([true, false]);
    const target = containerOf(ds).ports.find((p) => p.name === service.ports[0]!.targetPort);
    expect([service.ports[0]!.port, target?.containerPort, target?.protocol]).toEqual([80, 8080, 'TCP']);
  });
});

describe('linux-netexec placement by the scheduler on kubeadm’s nodes', () => {
  const { controller, worker, windows } = kubeadmNodes();
  const fits = (vars: typeof DEFAULT_VARS, kind: string) => {
    const spec = template(byKind(renderManifestObjects('linux-netexec', vars), kind)).spec;
    return [controller, worker, windows].filter((n) => unfitReason(spec, n) === undefined).map((n) => n.name);
  };

  it('with Linux workers: the workers only (the control-plane taint keeps the pods off the controllers)', () => {
    expect(controller.taints).toEqual([
      { key: 'node-role.kubernetes.io/control-plane', effect: 'NoSchedule' },
    ]);
    expect(fits(WITH_WORKERS, 'DaemonSet')).toEqual(['w1']);
    expect(fits(WITH_WORKERS, 'Deployment')).toEqual(['w1']);
  });

  it('without Linux workers: the Linux nodes, controllers included; never a Windows node', () => {
    expect(fits(WITHOUT_WORKERS, 'DaemonSet')).toEqual(['cp1', 'w1']);
    expect(fits(WITHOUT_WORKERS, 'Deployment')).toEqual(['cp1', 'w1']);
  });
});
