import { readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { parse, stringify } from 'yaml';
import { newestTestVersion } from '../../fixtures/artifacts/apt-repository.js';
import {
  type OfflineMirror,
  offlineSpecDocument,
  startOfflineMirror,
} from '../../fixtures/artifacts/offline-mirror.js';
import { type MixedClusterLab, startMixedClusterLab } from '../../fixtures/cluster-lab/mixed-lab.js';
import type { HostState } from '../../fixtures/lab/standins/runtime.js';
import { normalizeImageRef } from '../../fixtures/lab/standins/tools/image-archive.js';
import { type LabStaticRelease, makeStaticRelease } from '../../fixtures/lab/static-release.js';
import { offlineHostInfo } from '../../fixtures/windows-sim/cluster-commands-offline.js';
import { type Artifact, loadArtifactsFile, renderArtifacts } from '../../src/artifacts/index.js';
import { artifactsCommand } from '../../src/cli/commands/artifacts.js';
import { loadClusterContext } from '../../src/cluster/index.js';
import type { InventoryHost } from '../../src/types/inventory.js';
import { loadVersions } from '../../src/versions/versions.js';
import { kubemix, tempClusterDir } from './helpers.js';

// Offline mode end to end: `kubemix artifacts` fills a directory from a loopback mirror, then
// `kubemix up` of a mixed lab spec with `artifacts: { dir }` builds the cluster from it. Every
// lab host plays an offline host: the Linux stand-ins record and fail every internet attempt
// (curl to a host name, apt-get update, repository downloads), the simulated Windows host records
// and fails win_get_url and the scripts' own downloads. The run must finish with none recorded.
// The controller plays Debian 13 (its containerd package qualifies: installed from the carried
// .debs), the Linux worker Debian 12 (1.6.20 does not: containerd's static release from the
// directory, a lab-made tarball pinned by its SHA-256 through the spec's `versions:`).
let lab: MixedClusterLab;
let release: LabStaticRelease;
let mirror: OfflineMirror;
let spec: string;
let clusterDir: string;
let list: Artifact[];
/** The spec's control-plane hosts (its static hosts in group `control-plane`). */
let controllers: string[];

const linuxHosts = () => lab.linux.hosts;

/** A command on a Linux lab host over the lab's real sshd. */
function ssh(host: InventoryHost, command: string) {
  return execa(
    'ssh',
    [
      '-i',
      lab.linux.privateKeyPath,
      '-o',
      `UserKnownHostsFile=${lab.linux.knownHostsPath}`,
      '-o',
      'StrictHostKeyChecking=yes',
      '-o',
      'BatchMode=yes',
      '-p',
      String(host.port ?? 22),
      `root@${host.address}`,
      command,
    ],
    { reject: false },
  );
}

const hostState = async (host: InventoryHost) =>
  JSON.parse((await ssh(host, 'cat /var/lib/kubemix-lab/host.json')).stdout) as HostState;

beforeAll(async () => {
  lab = await startMixedClusterLab({
    controllers: 1,
    linuxWorkers: 1,
    windowsWorkers: 1,
    rebootDownMs: 300,
    scale: 0,
    linuxDistributions: { 'lab-01': 'trixie', 'lab-02': 'bookworm' },
  });
  for (const host of linuxHosts()) {
    const r = await ssh(host, 'mkdir -p /var/lib/kubemix-lab && touch /var/lib/kubemix-lab/offline');
    expect(r.exitCode, r.stderr).toBe(0);
  }
  for (const host of lab.windows.hosts) offlineHostInfo(lab.windows.host(host.name)).offline = true;

  // The spec a user would write: the lab's, plus the artifacts directory (relative to the spec).
  // Debian's containerd/runc versions move so the mirror's test packages need no pinned digest.
  const doc = parse(await readFile(lab.specPath, 'utf8')) as Record<string, unknown>;
  controllers = (doc['provider'] as { hosts: Array<{ name: string; group: string }> }).hosts
    .filter((h) => h.group === 'control-plane')
    .map((h) => h.name);
  const pinned = loadVersions();
  release = makeStaticRelease({ containerd: pinned['containerd-linux']!, runc: pinned['runc-linux']! });
  spec = join(dirname(lab.specPath), 'offline-lab.yaml');
  await writeFile(spec, stringify(offlineSpecDocument(doc, release.versions)));
  clusterDir = join(await tempClusterDir(), 'cluster');

  // A loopback mirror with every file (fixtures/artifacts/offline-mirror.ts); the image archives
  // are placed in the artifacts directory by hand, as README says.
  const context = await loadClusterContext({ spec: spec });
  list = renderArtifacts(loadArtifactsFile(), context.upPlan().vars);
  const artifactsDir = join(dirname(spec), 'artifacts');
  mirror = await startOfflineMirror({ list, work: dirname(spec), artifactsDir, files: release.files });
  const quiet = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
  try {
    expect(await artifactsCommand([spec, '--dir', artifactsDir, '--url-base', mirror.base])).toBe(0);
    expect(await artifactsCommand([spec, '--dir', artifactsDir, '--check'])).toBe(0);
  } finally {
    quiet.mockRestore();
  }
}, 300_000);

afterAll(async () => {
  if (clusterDir && lab && (await lab.linux.cluster.cluster()))
    await kubemix(['down', spec, '--cluster-dir', clusterDir]);
  await mirror?.close();
  await lab?.stop();
});

const doneIn = (stdout: string) => [...stdout.matchAll(/^DONE {2}(\S+)/gm)].map((m) => m[1]!);

describe('kubemix up with artifacts.dir (offline)', () => {
  it('builds the mixed cluster from the artifacts directory without any internet attempt', async () => {
    const up = await kubemix(['up', spec, '--cluster-dir', clusterDir]);
    expect(up.stderr, up.stdout.slice(-3000)).toBe('');
    expect(up.exitCode).toBe(0);
    expect(doneIn(up.stdout).sort()).toEqual(
      [
        'prepare-provider',
        'wait-for-hosts',
        'prepare-linux',
        'init-control-plane',
        'install-flannel',
        'join-linux-workers',
        'prepare-windows',
        'join-windows-workers',
        'install-windows-networking',
        'verify',
      ].sort(),
    );
    // The repository's newest revision of the release, as its index listed it.
    const version = newestTestVersion(list.find((a) => a.name === 'kubelet')!);
    expect(version).toMatch(/-2\.1$/);
    const linuxImages = list.filter((a) => a.os === 'linux' && a.kind === 'image');
    const controlPlaneOnly = linuxImages.filter((a) => a.role === 'control-plane').map((a) => a.name);
    // kubeadm's four control-plane images, which a worker never runs.
    expect(controllers).toEqual(['lab-01']);
    expect(controlPlaneOnly.sort()).toEqual([
      'etcd',
      'kube-apiserver',
      'kube-controller-manager',
      'kube-scheduler',
    ]);
    for (const host of linuxHosts()) {
      const state = await hostState(host);
      // Not one download: no curl to the internet, no apt-get update, no repository package.
      expect(state.network ?? [], host.name).toEqual([]);
      expect(state.packages).toMatchObject({ kubelet: version, kubeadm: version, kubectl: version });
      // flannel's images and kube-proxy's are on every Linux node before anything runs them, the
      // control plane's only on the controllers: neither copied to a worker nor imported there.
      const wanted = linuxImages.filter((a) => controllers.includes(host.name) || a.role === undefined);
      expect(state.images, host.name).toEqual(wanted.map((a) => normalizeImageRef(a.image!)).sort());
      const copied = (await ssh(host, 'ls /var/lib/kubemix-lab/artifacts')).stdout.split('\n');
      for (const image of linuxImages)
        expect(copied.includes(image.file), `${host.name}: ${image.file}`).toBe(wanted.includes(image));
      const repo = await ssh(
        host,
        'test -e /etc/apt/sources.list.d/kubernetes.list || test -e /etc/apt/keyrings/kubernetes-apt-keyring.gpg',
      );
      expect(repo.exitCode, `${host.name} has the Kubernetes repository configured`).toBe(1);
    }
    // Each node took the containerd source for its distribution, and got only that one's files: at
    // Kubernetes 1.35+ both Debian 13's 1.7.24 and Debian 12's 1.6.20 are below containerd's
    // minimum, so both install the carried static release and no containerd package.
    const runtimeFiles = async (host: InventoryHost) =>
      (await ssh(host, 'ls /var/lib/kubemix-lab/artifacts')).stdout
        .split('\n')
        .filter((f) => /^(containerd|runc)[-_]/.test(f));
    for (const host of linuxHosts()) {
      expect((await hostState(host)).packages['containerd'], host.name).toBeUndefined();
      expect((await ssh(host, 'containerd --version')).stdout).toBe(
        `containerd github.com/containerd/containerd/v2 v${release.versions['containerd-linux']} 0000000000000000000000000000000000000000`,
      );
      expect(await runtimeFiles(host)).toEqual(Object.keys(release.files).sort());
    }
    const win = offlineHostInfo(lab.windows.host('win-01'));
    expect(win.network).toEqual([]);
    expect(win.offlineCopies.map((c) => c.split(' <- ')[1])).toEqual([
      expect.stringMatching(/^C:\\k\\offline\\containerd-[\d.]+-windows-amd64\.tar\.gz$/),
      `C:\\k\\offline\\crictl-v${loadVersions()['crictl']}-windows-amd64.tar.gz`,
      'C:\\k\\offline\\kubelet.exe',
      'C:\\k\\offline\\kubeadm.exe',
      'C:\\k\\offline\\nssm-2.24.zip',
    ]);
    expect(win.images).toEqual(
      list
        .filter((a) => a.os === 'windows' && a.kind === 'image')
        // containerd names images fully (sigwindowstools/x -> docker.io/sigwindowstools/x), as the kubelet looks them up.
        .map((a) => normalizeImageRef(a.image!))
        .sort(),
    );
    expect(up.stdout).toMatch(/^outbound +ok /m);
    expect(lab.windows.errors).toEqual([]);
  }, 400_000);
});
