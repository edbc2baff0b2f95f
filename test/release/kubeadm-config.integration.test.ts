import { spawn } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import { beforeAll, describe, expect, it } from 'vitest';
import { parse, parseAllDocuments } from 'yaml';
import { builtRelease } from '../../fixtures/release/built-release.js';
import { stopChild } from '../../scripts/lab/stop-child.js';
import { freePort } from '../../scripts/lab/windows-ssh-host.js';
import { playbooksDir } from '../../src/playbook/cluster-playbooks.js';
import type { ClusterSpecInput } from '../../src/spec/schema.js';
import {
  linuxKubeadmConfiguration,
  planHostVars,
  windowsJoinConfiguration,
} from '../helpers/kubeadm-configurations.js';
import { testTempDir } from '../helpers/temp.js';

// The real kubeadm of the pinned release (scripts/release/build-kubernetes.sh) judges every
// kubeadm configuration the playbooks write: `kubeadm config validate` decodes it strictly (an
// unknown or misplaced field is an error: cmd/kubeadm/app/cmd/config.go, newCmdConfigValidate)
// and runs kubeadm's own validation, so a field the lab's stand-in kubeadm passes over unread
// cannot hide here. The vars are the plan's for a spec with three controllers, kubelet flags and
// Linux and Windows workers.

let kubeadm: string;
let work: string;

/** Three controllers with kubelet flags, a Linux worker with a bare flag, a Windows worker. */
const SPEC: ClusterSpecInput = {
  name: 'lab',
  provider: {
    type: 'static',
    hosts: [
      { name: 'cp1', address: '10.0.0.11', group: 'control-plane' },
      { name: 'cp2', address: '10.0.0.21', group: 'control-plane' },
      { name: 'cp3', address: '10.0.0.31', group: 'control-plane' },
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
    controlPlane: { count: 3, kubeletExtraArgs: ['--max-pods=50'] },
    workers: [
      { name: 'linux', os: 'linux', count: 1, kubeletExtraArgs: ['--rotate-certificates'] },
      { name: 'windows', os: 'windows', count: 1 },
    ],
  },
};

const varsOf = (host: string) => planHostVars(SPEC, host);

/** `kubeadm config validate` of `text`: its exit code and what it printed. */
async function validate(name: string, text: string) {
  const path = join(work, `${name}.yaml`);
  await writeFile(path, text);
  const run = await execa(kubeadm, ['config', 'validate', '--config', path], { reject: false, all: true });
  return { exitCode: run.exitCode, output: run.all ?? '' };
}

beforeAll(async () => {
  kubeadm = join(builtRelease().kubernetes, 'kubeadm');
  work = await testTempDir('kubeadm-config');
});

describe("the real kubeadm accepts every kubeadm configuration kubemix writes, at the pinned release's kubeadm", () => {
  const cases: Array<[string, () => string]> = [
    [
      'Linux init on the first controller, reached at another address (certSANs)',
      () =>
        linuxKubeadmConfiguration({ ...varsOf('cp1'), ansible_host: '203.0.113.7' }, 'init', {
          name: 'cp1',
          address: '10.0.0.11',
        }),
    ],
    [
      'Linux join of another controller (certificate key)',
      () =>
        linuxKubeadmConfiguration(varsOf('cp2'), 'join-control-plane', { name: 'cp2', address: '10.0.0.21' }),
    ],
    [
      'Linux join of a worker with a bare kubelet flag',
      () => linuxKubeadmConfiguration(varsOf('lw1'), 'join', { name: 'lw1', address: '10.0.0.12' }),
    ],
    ['Windows join', () => windowsJoinConfiguration(varsOf('win1'), { name: 'win1', address: '10.0.0.13' })],
  ];
  for (const [name, render] of cases)
    it(name, async () => {
      const checked = await validate(name.replace(/\W+/g, '-'), render());
      expect(checked, name).toEqual({ exitCode: 0, output: 'ok' });
    });

  it("passes the control plane's extraArgs only as flags the real components have", async () => {
    const text = linuxKubeadmConfiguration(varsOf('cp1'), 'init', { name: 'cp1', address: '10.0.0.11' });
    const cluster = parseAllDocuments(text)
      .map((d) => d.toJS() as Record<string, { extraArgs?: Array<{ name: string; value: string }> }> | null)
      .find((d) => (d?.['kind'] as unknown) === 'ClusterConfiguration')!;
    const components = {
      apiServer: 'kube-apiserver',
      controllerManager: 'kube-controller-manager',
      scheduler: 'kube-scheduler',
    };
    const given = Object.entries(components).filter(([field]) => cluster[field]?.extraArgs?.length);
    expect(given.map(([field]) => field)).toEqual(['controllerManager', 'scheduler']);
    for (const [field, program] of given) {
      // Flags are parsed before --version prints and exits: an unknown flag or a bad value fails.
      const flags = (cluster[field]?.extraArgs ?? []).map((a) => `--${a.name}=${a.value}`);
      const run = await execa(join(builtRelease().kubernetes, program), [...flags, '--version'], {
        reject: false,
      });
      expect(run.exitCode, `${program} ${flags.join(' ')}: ${run.stderr.split('\n').pop()}`).toBe(0);
    }
  });

  it('starts the real etcd with the raft timing kubemix gives it (etcd validates it only at start)', async () => {
    const text = linuxKubeadmConfiguration(varsOf('cp1'), 'init', { name: 'cp1', address: '10.0.0.11' });
    const cluster = parseAllDocuments(text)
      .map(
        (d) =>
          d.toJS() as {
            kind?: string;
            etcd?: { local?: { extraArgs?: Array<{ name: string; value: string }> } };
          },
      )
      .find((d) => d?.kind === 'ClusterConfiguration')!;
    const flags = (cluster.etcd?.local?.extraArgs ?? []).map((a) => `--${a.name}=${a.value}`);
    expect(flags).toEqual(['--heartbeat-interval=500', '--election-timeout=5000']);
    const [client, peer] = [await freePort(), await freePort()];
    const etcd = spawn(
      join(builtRelease().etcd, 'etcd'),
      [
        `--data-dir=${join(work, 'etcd')}`,
        `--listen-client-urls=http://127.0.0.1:${client}`,
        `--advertise-client-urls=http://127.0.0.1:${client}`,
        `--listen-peer-urls=http://127.0.0.1:${peer}`,
        `--initial-advertise-peer-urls=http://127.0.0.1:${peer}`,
        `--initial-cluster=default=http://127.0.0.1:${peer}`,
        ...flags,
      ],
      { stdio: ['ignore', 'ignore', 'pipe'] },
    );
    let said = '';
    etcd.stderr.on('data', (d: Buffer) => {
      said += d.toString();
    });
    const exited = new Promise<string>((resolve) =>
      etcd.once('exit', (code) => resolve(`etcd exited ${code}`)),
    );
    try {
      // Ready once it has elected itself and serves: /health answers {"health":"true"}.
      const healthy = (async () => {
        for (;;) {
          const answer = await fetch(`http://127.0.0.1:${client}/health`)
            .then((r) => r.json() as Promise<{ health?: string }>)
            .catch(() => undefined);
          if (answer?.health === 'true') return 'healthy';
          await new Promise((resolve) => setTimeout(resolve, 200));
        }
      })();
      expect(await Promise.race([healthy, exited]), said.slice(-1500)).toBe('healthy');
      // etcd reports the timing it runs with when it starts.
      expect(said).toContain('"heartbeat-interval":"500ms"');
      expect(said).toContain('"election-timeout":"5s"');
    } finally {
      await stopChild(etcd);
    }
  }, 60_000);

  it('is strict: the same init configuration with a misspelt field is refused, naming it', async () => {
    const text = linuxKubeadmConfiguration(varsOf('cp1'), 'init', { name: 'cp1', address: '10.0.0.11' });
    expect(text).toContain('kubernetesAPICall:');
    const checked = await validate('misspelt', text.replace('kubernetesAPICall:', 'kubernetesAPICal:'));
    expect(checked.exitCode).toBe(1);
    expect(checked.output).toContain('strict decoding error: unknown field "timeouts.kubernetesAPICal"');
  });
});

/** A static Pod manifest's first container's probes, as the kubelet would read them. */
interface ProbedPod {
  spec: {
    containers: Array<{
      livenessProbe?: { failureThreshold?: number };
      readinessProbe?: { periodSeconds?: number };
    }>;
  };
}

describe("the real kubeadm applies kubemix's patches to the control plane's static Pods", () => {
  // The configurations name the directory init-control-plane.yml fills on a controller; here the
  // same files are read from the repository, and kubeadm's dry run writes the manifests to `work`.
  const PATCHES_ON_NODE = '/etc/kubernetes/kubemix/patches';

  it('gives each control-plane container a 30-failure liveness probe and a 10 s readiness probe where kubeadm gives one', async () => {
    const text = linuxKubeadmConfiguration(varsOf('cp1'), 'init', { name: 'cp1', address: '10.0.0.11' });
    expect(text).toContain(`directory: ${PATCHES_ON_NODE}`);
    const config = join(work, 'patched-init.yaml');
    await writeFile(
      config,
      text.replace(PATCHES_ON_NODE, join(playbooksDir(), 'files', 'linux', 'kubeadm-patches')),
    );
    const manifests = join(work, 'dry-run');
    for (const phase of [
      ['control-plane', 'all'],
      ['etcd', 'local'],
    ]) {
      const run = await execa(kubeadm, ['init', 'phase', ...phase, '--config', config, '--dry-run'], {
        reject: false,
        all: true,
        env: { KUBEADM_INIT_DRYRUN_DIR: manifests },
      });
      expect(run.exitCode, run.all).toBe(0);
      // kubeadm names each patch it applied: a patch file it cannot read or apply fails the phase.
      expect(run.all).toMatch(/Applied patch of type "application\/strategic-merge-patch\+json"/);
    }
    const probes: Record<string, { liveness?: number; readiness?: number }> = {};
    for (const component of ['etcd', 'kube-apiserver', 'kube-controller-manager', 'kube-scheduler']) {
      const pod = parse(await readFile(join(manifests, `${component}.yaml`), 'utf8')) as ProbedPod;
      const container = pod.spec.containers[0]!;
      probes[component] = {
        liveness: container.livenessProbe?.failureThreshold,
        ...(container.readinessProbe ? { readiness: container.readinessProbe.periodSeconds } : {}),
      };
    }
    expect(probes).toEqual({
      etcd: { liveness: 30, readiness: 10 },
      'kube-apiserver': { liveness: 30, readiness: 10 },
      'kube-controller-manager': { liveness: 30 },
      'kube-scheduler': { liveness: 30, readiness: 10 },
    });
  });

  it("names the same directory in a controller's join, and none in a worker's", () => {
    const controller = linuxKubeadmConfiguration(varsOf('cp2'), 'join-control-plane', {
      name: 'cp2',
      address: '10.0.0.21',
    });
    const worker = linuxKubeadmConfiguration(varsOf('lw1'), 'join', { name: 'lw1', address: '10.0.0.12' });
    expect(controller).toContain(`directory: ${PATCHES_ON_NODE}`);
    expect(worker).not.toContain('patches:');
  });
});
