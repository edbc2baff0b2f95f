import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeLabSpec } from '../../fixtures/cluster-lab/lab-spec.js';
import { type MixedClusterLab, startMixedClusterLab } from '../../fixtures/cluster-lab/mixed-lab.js';
import { hnsNetworks } from '../../fixtures/windows-sim/network-leftovers.js';
import { labSsh } from '../playbooks-cluster/helpers.js';
import { kubemix, tempClusterDir } from './helpers.js';

// up -> down -> up on the SAME lab hosts, as a user rebuilds a lab. The node pod subnets follow
// the join order; here the first build joins the Linux worker first and the second build the
// Windows worker first (the user stops after one join and resumes: `--stop-after`), so both
// workers get the other's /24. What the first build's pod networking left must be gone after `down`, or the second build
// breaks: the Linux worker's leftover cni0 bridge fails its pod sandboxes (kubernetes#39557; the
// lab's stand-ins model it: fixtures/lab/state/leftovers.ts). On the Windows worker, `down` removes
// kube-proxy's cached source VIP too; kubemix's run.ps1 would re-reserve one from another subnet
// anyway (the lab reads the script with the file on the node: test/lab/leftovers.test.ts).
let lab: MixedClusterLab;
let dir: string;
let spec: string;
let clusterDir: string;

beforeAll(async () => {
  lab = await startMixedClusterLab({ controllers: 1, linuxWorkers: 1, windowsWorkers: 1, rebootDownMs: 300 });
  dir = await tempClusterDir();
  spec = await writeLabSpec(dir, {
    name: 'rebuild',
    linuxHosts: lab.linux.hosts,
    controllers: 1,
    windowsHosts: lab.windows.hosts,
    knownHostsPath: lab.linux.knownHostsPath,
    privateKeyPath: lab.linux.privateKeyPath,
  });
  clusterDir = join(dir, 'cluster');
});

afterAll(async () => {
  if (lab && (await lab.linux.cluster.cluster())) await kubemix(['down', spec, '--cluster-dir', clusterDir]);
  await lab?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

/**
 * `kubemix up` as a user who stops and resumes: runs up to each of `stops` in turn
 * (`--stop-after`), then the rest. The workers join in the order their join tasks come.
 */
async function upInSteps(stops: string[]) {
  for (const stop of stops) {
    const run = await kubemix(['up', spec, '--cluster-dir', clusterDir, '--stop-after', stop]);
    expect(run.stderr).toBe('');
    expect(run.exitCode).toBe(0);
  }
  return kubemix(['up', spec, '--cluster-dir', clusterDir]);
}

/** Each node's pod subnet. */
async function podCidrs(): Promise<Record<string, string>> {
  const nodes = await lab.linux.cluster.nodes();
  return Object.fromEntries(
    nodes.map((n) => [n.metadata.name, String((n['spec'] as { podCIDR?: string }).podCIDR)]),
  );
}

/** What a Linux lab host has of the pod network: cni0, flannel's link, /var/lib/cni, /run/flannel. */
async function linuxLeftovers(name: string): Promise<string[]> {
  const transport = labSsh(lab.linux, lab.linux.hosts.find((h) => h.name === name)!);
  try {
    const probe = await transport.exec({
      command:
        'for l in cni0 flannel.4096; do ip link show "$l" >/dev/null 2>&1 && echo "link $l"; done; for d in /var/lib/cni /run/flannel; do [ -e "$d" ] && echo "dir $d"; done; true',
    });
    return probe.stdout.split('\n').filter(Boolean);
  } finally {
    await transport.close();
  }
}

/** What the Windows lab host has of the pod network. */
function windowsLeftovers(): string[] {
  const host = lab.windows.host('win-01');
  const files = ['C:/k/kube-proxy/source-vip.json', 'C:/var/lib/cni', 'C:/run/flannel'].filter((f) =>
    host.fs.exists(f),
  );
  return [...[...hnsNetworks(host).values()].map((n) => `hns ${n.name}`), ...files];
}

const notRunning = async () =>
  (await lab.linux.cluster.pods())
    .filter((p) => (p['status'] as { phase?: string }).phase !== 'Running')
    .map((p) => `${p.metadata.namespace}/${p.metadata.name}`);

describe('rebuilding on the same hosts after down', () => {
  it('cleans what pod networking left, so a second build whose nodes get other pod subnets works', {
    timeout: 300_000,
  }, async () => {
    const first = await upInSteps(['install-flannel', 'join-linux-workers']);
    expect(first.stderr).toBe('');
    expect(first.exitCode).toBe(0);
    expect(await podCidrs()).toEqual({
      'lab-01': '10.244.0.0/24',
      'lab-02': '10.244.1.0/24',
      'win-01': '10.244.2.0/24',
    });

    const down = await kubemix(['down', spec, '--cluster-dir', clusterDir]);
    expect(down.stderr).toBe('');
    expect(down.exitCode).toBe(0);
    expect(await linuxLeftovers('lab-01')).toEqual([]);
    expect(await linuxLeftovers('lab-02')).toEqual([]);
    expect(windowsLeftovers()).toEqual([]);

    const second = await upInSteps(['join-windows-workers']);
    // The precondition of this test: both workers now have the other one's subnet.
    expect(await podCidrs()).toEqual({
      'lab-01': '10.244.0.0/24',
      'lab-02': '10.244.2.0/24',
      'win-01': '10.244.1.0/24',
    });
    expect(second.stderr).toBe('');
    expect(second.exitCode).toBe(0);
    for (const check of ['node-to-pod', 'pod-to-pod', 'service-vip', 'service-dns', 'nodeport', 'outbound'])
      expect(second.stdout).toMatch(new RegExp(`^${check} +ok `, 'm'));
    expect(await notRunning()).toEqual([]);
    expect((await lab.linux.cluster.events()).filter((e) => e.reason === 'FailedCreatePodSandBox')).toEqual(
      [],
    );

    const again = await kubemix(['down', spec, '--cluster-dir', clusterDir]);
    expect(again.exitCode).toBe(0);
    expect(await lab.linux.cluster.nodes()).toEqual([]);
  });
});
