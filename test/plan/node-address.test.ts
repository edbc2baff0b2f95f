import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { runClusterPlan } from '../../src/cluster/run-plan.js';
import { assignHost } from '../../src/engine/provision.js';
import { buildPlan } from '../../src/plan/index.js';
import { loadClusterPlaybooks, playbooksDir } from '../../src/playbook/cluster-playbooks.js';
import { clusterSpecSchema } from '../../src/spec/schema.js';
import { LocalTransport } from '../../src/transport/local/index.js';
import type { Plan, PlanStep } from '../../src/types/plan.js';
import { loadVersions } from '../../src/versions/versions.js';
import { testTempDir } from '../helpers/temp.js';

// An EC2 controller is reached on its public address (connectVia public, the default) and owns
// only its private one: the kubelet's node-ip, the advertise address and the control plane
// endpoint must be the private (node) address, never ansible_host.
const PUBLIC = '203.0.113.7';
const PRIVATE = '10.0.0.5';

const ec2Spec = clusterSpecSchema.parse({
  name: 'addr',
  provider: { type: 'ec2', region: 'eu-west-1', operatorCidr: '198.51.100.0/24' },
  nodes: { controlPlane: { count: 1 } },
});

describe('the node address of a host kubemix connects to elsewhere', () => {
  it('is what init-control-plane gives kubeadm and the kubelet, and the control plane endpoint', async () => {
    const work = await testTempDir('node-address');
    const playbooks = await loadClusterPlaybooks();
    const built = buildPlan({ spec: ec2Spec, versions: loadVersions(), playbooks, clusterDir: work });
    // What create-hosts records for the instance (see hostAssignment in src/provider/ec2/instances.ts).
    const hosts = built.hosts.map((h) =>
      h.name === 'controller-01' ? assignHost(h, { name: h.name, address: PUBLIC, nodeAddress: PRIVATE }) : h,
    );
    // The playbook's own steps that choose node_ip, then its kubeadm template written here.
    const addressSteps = (playbooks['init-control-plane'] ?? []).filter((s) => /node's address/.test(s.name));
    expect(addressSteps).toHaveLength(2);
    const config = join(work, 'kubeadm-config.yaml');
    const template: PlanStep = {
      name: 'kubeadm configuration',
      module: 'template',
      args: { src: join(playbooksDir(), 'templates', 'linux', 'kubeadm-config.yaml.j2'), dest: config },
    };
    const plan: Plan = {
      cluster: built.cluster,
      hosts,
      vars: built.vars,
      tasks: [
        {
          name: 'init-control-plane',
          description: '',
          needs: [],
          hosts: ['controller-01'],
          steps: [...addressSteps, template],
          implemented: true,
        },
      ],
    };
    const summary = await runClusterPlan({
      plan,
      clusterDir: join(work, 'cluster'),
      transports: (h) => new LocalTransport(h.name),
    });
    expect(summary.error ?? '').toBe('');
    const docs = parseAllDocuments(await readFile(config, 'utf8')).map((d) => d.toJS());
    const init = docs.find((d) => d.kind === 'InitConfiguration');
    const cluster = docs.find((d) => d.kind === 'ClusterConfiguration');
    expect(init.localAPIEndpoint.advertiseAddress).toBe(PRIVATE);
    expect(init.nodeRegistration.kubeletExtraArgs).toContainEqual({ name: 'node-ip', value: PRIVATE });
    expect(cluster.controlPlaneEndpoint).toBe(`${PRIVATE}:6443`);
    // The public address is only a name in the API server's certificate (the operator's kubeconfig
    // reaches the API server there), nowhere a node would bind or advertise it.
    expect(cluster.apiServer).toEqual({ certSANs: [PUBLIC] });
    delete cluster.apiServer;
    expect(JSON.stringify(docs)).not.toContain(PUBLIC);
  });
});
