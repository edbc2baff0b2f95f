import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { beforeAll, describe, expect, it } from 'vitest';
import { kubeadmImageList, kubeadmRelease } from '../../fixtures/lab/kubernetes-releases.js';
import { loadArtifactsFile, renderArtifacts } from '../../src/artifacts/index.js';
import { buildPlan } from '../../src/plan/index.js';
import { loadSpec } from '../../src/spec/index.js';
import { loadVersions } from '../../src/versions/versions.js';

// The real kubeadm, kubelet, etcd and pause of the pinned release, built here from the Go module
// proxy (scripts/release/; scripts/setup.sh builds them once, into ~/.cache/kubemix/release), judge
// what kubemix carries about them: the images kubeadm init pulls (playbooks/artifacts.yaml's
// kubeadm-images table, which offline mode imports and containerd's sandbox image follows) and the
// versions the built programs report. Run alone on a machine without the cache, the build takes
// about 15 minutes on 2 cores.
const root = fileURLToPath(new URL('../..', import.meta.url));
const script = (name: string) => join(root, 'scripts/release', name);
const BUILD_LIMIT_MS = 40 * 60_000;

const version = loadVersions()['kubernetes']!;
const minor = version.split('.').slice(0, 2).join('.');
const table = loadArtifactsFile()['kubeadm-images'][minor]!;
let kubernetes: string;
let etcd: string;
let pause: string;
let coredns: string;

/** What the real `kubeadm config images list --kubernetes-version v<target>` prints, a line each. */
async function kubeadmImages(target: string): Promise<string[]> {
  const args = ['config', 'images', 'list', '--kubernetes-version', `v${target}`];
  const { stdout } = await execa(join(kubernetes, 'kubeadm'), args);
  return stdout.trim().split('\n');
}

async function built(name: string, args: string[]): Promise<string> {
  const run = await execa('bash', [script(name), ...args], { reject: false });
  if (run.exitCode !== 0) throw new Error(`${name} ${args.join(' ')} failed:\n${run.stderr}`);
  return run.stdout.trim().split('\n').at(-1)!;
}

beforeAll(async () => {
  kubernetes = await built('build-kubernetes.sh', [version]);
  etcd = await built('build-etcd.sh', [table.etcd.replace(/-\d+$/, '')]);
  pause = await built('build-pause.sh', [version, table.pause]);
  coredns = await built('build-coredns.sh', [table.coredns]);
}, BUILD_LIMIT_MS);

describe(`the real Kubernetes ${version}, built from the Go module proxy`, () => {
  it('every program reports the release it was built as', async () => {
    const versionArgs: Record<string, string[]> = {
      kubeadm: ['version', '-o', 'short'],
      kubectl: ['version', '--client'],
      kubelet: ['--version'],
      'kube-apiserver': ['--version'],
      'kube-controller-manager': ['--version'],
      'kube-scheduler': ['--version'],
      'kube-proxy': ['--version'],
    };
    for (const [program, args] of Object.entries(versionArgs)) {
      const { stdout } = await execa(join(kubernetes, program), args);
      expect(stdout, program).toContain(`v${version}`);
    }
  });

  it("kubeadm pulls exactly the images kubemix's artifacts list carries for a cluster of that release", async () => {
    const listed = await kubeadmImages(version);
    const { spec } = await loadSpec(join(root, 'fixtures/specs/valid/minimal.yaml'));
    const plan = buildPlan({ spec, versions: loadVersions(spec.versions ?? {}) });
    const carried = renderArtifacts(loadArtifactsFile(), plan.vars)
      // registry.k8s.io's e2e-test-images (agnhost) are verify's workload, not kubeadm's.
      .filter((a) => a.kind === 'image' && a.os === 'linux' && a.image!.startsWith('registry.k8s.io/'))
      .filter((a) => !a.image!.startsWith('registry.k8s.io/e2e-test-images/'))
      .map((a) => a.image!);
    expect(carried.sort()).toEqual(listed.sort());
  });

  // The lab's kubeadm stand-in answers `config images list` from its model of this release's
  // constants (fixtures/lab/kubernetes-releases.ts): the real binary says whether the model holds,
  // in kubeadm's order, also for the older control planes this kubeadm accepts.
  it("the lab's kubeadm model lists the same images in the same order as the real kubeadm", async () => {
    const [major, minorNumber] = version.split('.').map(Number) as [number, number];
    for (const target of [`${version}`, `${major}.${minorNumber}.0`, `${major}.${minorNumber - 1}.4`]) {
      expect(kubeadmImageList(kubeadmRelease(version), target), target).toEqual(await kubeadmImages(target));
    }
  });

  it("etcd, pause and CoreDNS are the versions of the image tags kubeadm asks for (etcd's tag adds a -<revision>)", async () => {
    const etcdVersion = await execa(join(etcd, 'etcd'), ['--version']);
    expect(etcdVersion.stdout).toContain(`etcd Version: ${table.etcd.replace(/-\d+$/, '')}`);
    const pauseVersion = await execa(join(pause, 'pause'), ['-v']);
    expect(pauseVersion.stdout).toBe(`pause.c v${table.pause}-v${version}`);
    const corednsVersion = await execa(join(coredns, 'coredns'), ['-version']);
    expect(corednsVersion.stdout.split('\n')[0]).toBe(`CoreDNS-${table.coredns.replace(/^v/, '')}`);
  });
});
