import { cp, mkdir, readFile, symlink, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { parse, stringify } from 'yaml';
import { offlineSpecDocument, startOfflineMirror } from '../../fixtures/artifacts/offline-mirror.js';
import { writeLabSpec } from '../../fixtures/cluster-lab/lab-spec.js';
import { type ClusterLab, startClusterLab } from '../../fixtures/lab/cluster-lab.js';
import type { HostState } from '../../fixtures/lab/standins/runtime.js';
import { type LabStaticRelease, makeStaticRelease } from '../../fixtures/lab/static-release.js';
import { kubemixCli } from '../../scripts/lab/kubemix-cli.js';
import { loadArtifactsFile, renderArtifacts } from '../../src/artifacts/index.js';
import { artifactsCommand } from '../../src/cli/commands/artifacts.js';
import { loadClusterContext } from '../../src/cluster/index.js';
import { loadVersions } from '../../src/versions/versions.js';
import { OLD_CONTAINERD_TEMPLATE } from '../helpers/old-containerd-template.js';
import { testTempDir } from '../helpers/temp.js';
import { kubemix, onLabHost } from './helpers.js';

// Offline mode, Linux only, through `kubemix up`: the artifacts directory carries exactly the
// images kubeadm's list names (playbooks/artifacts.yaml kubeadm-images), and the lab's containerd
// uses the sandbox image its /etc/containerd/config.toml names (fixtures/lab/README.md). kubemix
// as it was before commit 941b47b wrote that file from a template fixing pause:3.10, which offline
// mode never carried: its `up` must fail at init-control-plane; today's must get past it.

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));

let lab: ClusterLab;
let work: string;
let release: LabStaticRelease;
/** The built CLI with the old containerd template in its playbooks. */
let oldCli: string;

/** A Linux-only offline spec for one lab host (artifacts.dir shared by both specs). */
async function offlineSpec(name: string, host: number): Promise<string> {
  const path = await writeLabSpec(work, {
    name,
    linuxHosts: [lab.hosts[host]!],
    controllers: 1,
    knownHostsPath: lab.knownHostsPath,
    privateKeyPath: lab.privateKeyPath,
  });
  const doc = parse(await readFile(path, 'utf8')) as Record<string, unknown>;
  await writeFile(path, stringify(offlineSpecDocument(doc, release.versions)));
  return path;
}

const hostState = async (host: number) =>
  JSON.parse(await onLabHost(lab, lab.hosts[host]!, 'cat /var/lib/kubemix-lab/host.json')) as HostState;

beforeAll(async () => {
  lab = await startClusterLab({ count: 2, scale: 0 });
  for (const host of lab.hosts)
    await onLabHost(lab, host, 'mkdir -p /var/lib/kubemix-lab && touch /var/lib/kubemix-lab/offline');
  work = await testTempDir('offline-sandbox');
  const pinned = loadVersions();
  release = makeStaticRelease({ containerd: pinned['containerd-linux']!, runc: pinned['runc-linux']! });

  // The artifacts directory, filled as a user fills it (offline-cluster.integration.test.ts).
  const spec = await offlineSpec('probe', 0);
  const list = renderArtifacts(loadArtifactsFile(), (await loadClusterContext({ spec: spec })).upPlan().vars);
  const artifactsDir = join(work, 'artifacts');
  const mirror = await startOfflineMirror({ list, work, artifactsDir, files: release.files });
  const quiet = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
  try {
    expect(await artifactsCommand([spec, '--dir', artifactsDir, '--url-base', mirror.base])).toBe(0);
  } finally {
    quiet.mockRestore();
    await mirror.close();
  }

  // kubemix's built CLI finds its playbooks beside dist/: a copy with the old template.
  const copy = join(work, 'old-kubemix');
  await mkdir(copy);
  for (const entry of ['dist', 'playbooks', 'package.json'])
    await cp(join(repoRoot, entry), join(copy, entry), { recursive: true });
  await symlink(join(repoRoot, 'node_modules'), join(copy, 'node_modules'));
  await writeFile(join(copy, 'playbooks/templates/linux/containerd-config.toml.j2'), OLD_CONTAINERD_TEMPLATE);
  oldCli = kubemixCli(copy);
}, 300_000);

afterAll(async () => {
  await lab?.stop();
});

describe('kubemix up offline: the sandbox image', () => {
  it('with the old containerd template (pause:3.10) init-control-plane fails: the sandbox image is not in the artifacts', async () => {
    const spec = await offlineSpec('old-template', 0);
    const up = await execa(
      'node',
      [oldCli, 'up', spec, '--cluster-dir', join(work, 'old-cluster'), '--stop-before', 'install-flannel'],
      {
        cwd: repoRoot,
        reject: false,
        env: { CI: 'true' },
      },
    );
    expect(up.exitCode).not.toBe(0);
    expect(up.stdout).toMatch(/^DONE {2}prepare-linux/m);
    // kubeadm init runs with its token and certificate key withheld, not under no_log: the failure
    // shows kubeadm's own error.
    expect(up.stdout).toContain('FAILED init-control-plane lab-01: kubeadm init on the first controller');
    expect(up.stdout).toMatch(
      /error execution phase wait-control-plane: cannot obtain client without bootstrap: could not bootstrap the admin user in file admin\.conf: unable to create ClusterRoleBinding: Post "https:\/\/[\d.]+:6443\/apis\/rbac\.authorization\.k8s\.io\/v1\/clusterrolebindings\?timeout=10s": dial tcp [\d.]+:6443: connect: connection refused/,
    );
    expect(up.stdout).not.toContain('hidden by no_log');
    expect(await onLabHost(lab, lab.hosts[0]!, 'cat /etc/containerd/config.toml')).toContain(
      'sandbox_image = "registry.k8s.io/pause:3.10"',
    );
    // The only internet attempt: containerd asking the registry for the sandbox image.
    expect((await hostState(0)).network).toEqual([
      'containerd https://registry.k8s.io/v2/pause/manifests/3.10',
    ]);
    expect(await lab.cluster.cluster()).toBeUndefined();
  }, 400_000);

  it("with today's template init-control-plane succeeds without any internet attempt", async () => {
    const spec = await offlineSpec('current-template', 1);
    const up = await kubemix([
      'up',
      spec,
      '--cluster-dir',
      join(dirname(spec), 'current-cluster'),
      '--stop-before',
      'install-flannel',
    ]);
    expect(up.stderr, up.stdout.slice(-3000)).toBe('');
    expect(up.exitCode).toBe(0);
    expect(up.stdout).toMatch(/^DONE {2}init-control-plane/m);
    expect((await hostState(1)).network ?? []).toEqual([]);
    expect((await lab.cluster.nodes()).map((n) => n.metadata.name)).toEqual(['lab-02']);
  }, 400_000);
});
