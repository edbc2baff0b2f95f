import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type MixedClusterLab, startMixedClusterLab } from '../../fixtures/cluster-lab/mixed-lab.js';
import type { KubeObject, LabEvent } from '../../fixtures/lab/cluster-state.js';
import { containerdImages } from '../../fixtures/windows-sim/containerd-images.js';
import type { RunEvent } from '../../src/types/events.js';
import { loadVersions } from '../../src/versions/versions.js';
import { DEFAULT_KUBERNETES, OLDEST_TESTED_KUBERNETES } from '../helpers/kubernetes-test-versions.js';
import { kubemix, onLabHost, tempClusterDir } from './helpers.js';

// `kubemix up` of a cluster with Windows Server 2019, 2022 and 2025 workers (one each) on the
// mixed lab, as a user runs it, at the default Kubernetes version and at the oldest supported
// minor: win-webserver must run on every build (one Deployment per version, each with its
// RuntimeClass and Server Core image), verify must pass, and the same lab hosts must build again
// after `down`. The lab refuses an image of the wrong build (containerd's platform matching) and
// reports the kubelet's image events (fixtures/lab/state/image-compat.ts); its stand-ins accept
// only what each version's kubelet, kubeadm and API server accept (fixtures/lab/kubernetes-releases.ts,
// the release's OpenAPI spec), and Debian's containerd is below both versions' minimum, so the
// controller takes containerd's static release the lab serves.
const LTSC2019 = 'mcr.microsoft.com/windows/servercore:ltsc2019';
const LTSC2022 = 'mcr.microsoft.com/windows/servercore:ltsc2022';
const LTSC2025 = 'mcr.microsoft.com/windows/servercore:ltsc2025';
const CHECKS = ['node-to-pod', 'pod-to-pod', 'service-vip', 'service-dns', 'nodeport', 'outbound'];

describe.each([
  ['the default Kubernetes', DEFAULT_KUBERNETES],
  ['the oldest supported minor', OLDEST_TESTED_KUBERNETES],
])('at %s (%s)', (_label, kubernetesVersion) => {
  let lab: MixedClusterLab;
  let clusterDir: string;

  beforeAll(async () => {
    lab = await startMixedClusterLab({
      controllers: 1,
      linuxWorkers: 0,
      windowsWorkers: 3,
      windowsVersions: ['2019', '2022', '2025'],
      rebootDownMs: 300,
      scale: 0,
      kubernetesVersion,
    });
    clusterDir = join(await tempClusterDir(), 'cluster');
  });

  afterAll(async () => {
    if (lab && (await lab.linux.cluster.cluster()))
      await kubemix(['down', lab.specPath, '--cluster-dir', clusterDir]);
    await lab?.stop();
  });

  const winPods = async () =>
    (await lab.linux.cluster.pods('default')).filter((p) => p.metadata.name.startsWith('win-webserver-'));
  const nodeOf = (p: KubeObject) => (p['spec'] as { nodeName?: string }).nodeName;

  /** Every event of the latest run's JSON-lines log. */
  async function lastRunEvents(): Promise<RunEvent[]> {
    const runs = (await readdir(join(clusterDir, 'runs'))).sort();
    const text = await readFile(join(clusterDir, 'runs', runs.at(-1)!), 'utf8');
    return text
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as RunEvent);
  }

  /** What prepare-windows' pre-pull step printed on a host (its live output). */
  function prePullOutput(events: RunEvent[], host: string): string {
    return events
      .filter(
        (e): e is Extract<RunEvent, { type: 'step-output' }> =>
          e.type === 'step-output' &&
          e.task === 'prepare-windows' &&
          e.host === host &&
          e.step.startsWith("Pull the node's workload image"),
      )
      .map((e) => e.data)
      .join('');
  }

  describe('a mixed cluster with Windows Server 2019, 2022 and 2025 workers', () => {
    it('builds and verifies: each version runs its own Server Core, pre-pulled while the control plane came up', async () => {
      const up = await kubemix(['up', lab.specPath, '--cluster-dir', clusterDir]);
      expect(up.stderr).toBe('');
      expect(up.exitCode).toBe(0);
      for (const check of CHECKS) expect(up.stdout).toMatch(new RegExp(`^${check} +ok `, 'm'));

      // Every node runs the version the spec asked for; the controller runs containerd's static release.
      const nodes = await lab.linux.cluster.nodes();
      expect(
        nodes.map((n) => (n['status'] as { nodeInfo: { kubeletVersion: string } }).nodeInfo.kubeletVersion),
      ).toEqual(nodes.map(() => `v${kubernetesVersion}`));
      const controller = lab.linux.hosts[0]!;
      expect(await onLabHost(lab.linux, controller, 'containerd --version')).toMatch(
        new RegExp(
          `^containerd github.com/containerd/containerd/v2 v${loadVersions()['containerd-linux']!.replaceAll('.', '\\.')} `,
        ),
      );

      const builds = Object.fromEntries(
        nodes.map((n) => [n.metadata.name, n.metadata.labels?.['node.kubernetes.io/windows-build']]),
      );
      expect(builds).toMatchObject({
        'win-01': '10.0.17763',
        'win-02': '10.0.20348',
        'win-03': '10.0.26100',
      });

      // One RuntimeClass per version present; each version's pods on its build.
      const runtimeClasses = await lab.linux.cluster.listObjects('RuntimeClass');
      expect(runtimeClasses.map((o) => o.metadata.name).sort()).toEqual([
        'windows-2019',
        'windows-2022',
        'windows-2025',
      ]);
      const pods = await winPods();
      expect(
        pods
          .map((p) => [
            p.metadata.name.split('-').slice(0, 3).join('-'),
            nodeOf(p),
            (p['spec'] as { containers: { image: string }[] }).containers[0]!.image,
          ])
          .sort(),
      ).toEqual([
        ['win-webserver-2019', 'win-01', LTSC2019],
        ['win-webserver-2019', 'win-01', LTSC2019],
        ['win-webserver-2022', 'win-02', LTSC2022],
        ['win-webserver-2022', 'win-02', LTSC2022],
        ['win-webserver-2025', 'win-03', LTSC2025],
        ['win-webserver-2025', 'win-03', LTSC2025],
      ]);

      // prepare-windows pulled each node's image with ctr and showed the pull; the kubelet then
      // found it already present and pulled nothing.
      const events = await lastRunEvents();
      for (const [host, image] of [
        ['win-01', LTSC2019],
        ['win-02', LTSC2022],
        ['win-03', LTSC2025],
      ] as const) {
        const output = prePullOutput(events, host);
        expect(output, `${host} pre-pull output`).toMatch(/^elapsed: [\d.]+ *s +total: /m);
        expect(output).toMatch(/^unpacking windows\/amd64 sha256:[0-9a-f]{64}\.\.\.\r?$/m);
        expect(output).toMatch(/^done: /m);
        expect([...containerdImages(lab.windows.host(host)).keys()]).toContain(image);
      }
      // verify sized each rollout wait from the pre-pull: every node holds its image, so no pull budget.
      const state = JSON.parse(await readFile(join(clusterDir, 'state.json'), 'utf8')) as {
        outputs: Record<string, Record<string, { results: { cmd: string; stdout: string }[] }>>;
      };
      const verifyOutputs = state.outputs['lab-01']!;
      expect(verifyOutputs['verify_image_missing']!.results.map((r) => r.stdout)).toEqual(['', '', '']);
      expect(verifyOutputs['verify_rollout']!.results.map((r) => r.cmd.split(' ').slice(-2))).toEqual([
        ['deployment/win-webserver-2019', '--timeout=300s'],
        ['deployment/win-webserver-2022', '--timeout=300s'],
        ['deployment/win-webserver-2025', '--timeout=300s'],
      ]);
      const kubelet: LabEvent[] = await lab.linux.cluster.events('default');
      for (const pod of pods) {
        const image = (pod['spec'] as { containers: { image: string }[] }).containers[0]!.image;
        const mine = kubelet.filter((e) => e.object === `pod/${pod.metadata.name}`);
        expect(
          mine.map((e) => [e.reason, e.message]),
          pod.metadata.name,
        ).toEqual([['Pulled', `Container image "${image}" already present on machine`]]);
      }
    });

    it('goes down and builds again on the same lab hosts', async () => {
      const down = await kubemix(['down', lab.specPath, '--cluster-dir', clusterDir]);
      expect(down.stderr).toBe('');
      expect(down.exitCode).toBe(0);
      expect(await lab.linux.cluster.nodes()).toEqual([]);

      const again = await kubemix(['up', lab.specPath, '--cluster-dir', clusterDir]);
      expect(again.stderr).toBe('');
      expect(again.exitCode).toBe(0);
      for (const check of CHECKS) expect(again.stdout).toMatch(new RegExp(`^${check} +ok `, 'm'));
      expect((await winPods()).map((p) => nodeOf(p)).sort()).toEqual([
        'win-01',
        'win-01',
        'win-02',
        'win-02',
        'win-03',
        'win-03',
      ]);
    });
  });
});
