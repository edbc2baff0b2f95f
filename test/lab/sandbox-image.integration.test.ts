import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildOciImageArchive } from '../../fixtures/artifacts/oci-archive.js';
import { ClusterState } from '../../fixtures/lab/cluster-state.js';
import { kubeadmImageList, kubeadmRelease } from '../../fixtures/lab/kubernetes-releases.js';
import type { HostState } from '../../fixtures/lab/standins/runtime.js';
import { type ArtifactsFile, loadArtifactsFile, renderArtifacts } from '../../src/artifacts/list.js';
import { manifestImages } from '../../src/manifests/index.js';
import { kubernetesVersionVars } from '../../src/plan/index.js';
import { renderString } from '../../src/template/render.js';
import { loadVersions } from '../../src/versions/versions.js';
import { OLD_CONTAINERD_TEMPLATE } from '../helpers/old-containerd-template.js';
import { testTempDir } from '../helpers/temp.js';
import { fakeHost } from './helpers.js';
import { printJoinCommand } from './kubeadm-config.js';
import { host, hostState, init, VERSION } from './pinned-kubeadm-host.js';

// The lab's containerd and kubeadm and the images they need, on fake hosts running the stand-ins
// as child processes: kubeadm's ImagePull preflight (online it pulls, recorded; offline it fails
// with kubeadm's words), containerd's sandbox image from /etc/containerd/config.toml, and what a
// sandbox image that is not there does to kubeadm init and to a joined node's pods.

const KUBEADM = kubeadmRelease(VERSION);
const KUBEADM_PAUSE = `registry.k8s.io/pause:${KUBEADM.pause}`;

/** The current template rendered with the plan's vars for VERSION, as prepare-linux writes it. */
async function currentConfig(): Promise<string> {
  const source = await readFile(
    new URL('../../playbooks/templates/linux/containerd-config.toml.j2', import.meta.url),
    'utf8',
  );
  const minor = VERSION.split('.').slice(0, 2).join('.');
  return renderString(source, kubernetesVersionVars(VERSION, loadArtifactsFile()['kubeadm-images'][minor]));
}

/** The Linux images offline mode imports (playbooks/artifacts.yaml), for a given kubeadm-images table. */
function productImages(list: ArtifactsFile = loadArtifactsFile()): string[] {
  const versions = loadVersions();
  return renderArtifacts(list, {
    ...kubernetesVersionVars(VERSION, undefined),
    versions,
    images: manifestImages(versions, VERSION),
  })
    .filter((a) => a.os === 'linux' && a.kind === 'image')
    .map((a) => a.image!);
}

const PULLING = [
  '[preflight] Pulling images required for setting up a Kubernetes cluster',
  '[preflight] This might take a minute or two, depending on the speed of your internet connection',
  "[preflight] You can also perform this action beforehand using 'kubeadm config images pull'",
].join('\n');

/** containerd's error for a pull from an offline host (containerd 2.x's transfer service). */
const offlinePull = (ref: string, path: string) =>
  `rpc error: code = Unknown desc = failed to pull and unpack image "${ref}": failed to resolve image: failed to do request: Head "https://registry.k8s.io/v2/${path}": dial tcp: lookup registry.k8s.io: no such host`;

describe('kubeadm config images', () => {
  it("list prints the installed kubeadm's images for --kubernetes-version; an unmodelled kubeadm is refused", async () => {
    const stateDir = await testTempDir('state');
    const h = await host(stateDir, 'cp1', '10.9.0.2');
    const list = await h.run('kubeadm', ['config', 'images', 'list', '--kubernetes-version', `v${VERSION}`]);
    expect(list.stderr).toBe('');
    // The product's offline list names the same kubeadm images (it is checked against the lab's table in kubeadm-releases.test.ts).
    // (agnhost, verify's workload, is a registry.k8s.io image kubeadm does not list.)
    expect(list.stdout.trim().split('\n').sort()).toEqual(
      productImages()
        .filter((i) => i.startsWith('registry.k8s.io/') && !i.startsWith('registry.k8s.io/e2e-test-images/'))
        .sort(),
    );
    const old = await fakeHost(stateDir, 'old', '10.9.0.4');
    const oldList = await old.run('kubeadm', ['config', 'images', 'list', '--kubernetes-version', 'v1.31.2']);
    expect(oldList.stdout).toContain('registry.k8s.io/pause:3.10\n');
    const file = join(old.root, 'var/lib/kubemix-lab/host.json');
    const state = JSON.parse(await readFile(file, 'utf8')) as HostState;
    state.packages['kubeadm'] = '1.35.4-1.1';
    await writeFile(file, JSON.stringify(state));
    const refused = await old.run('kubeadm', ['config', 'images', 'list', '--kubernetes-version', 'v1.35.4']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/^kubemix lab: not modelled: kubeadm v1\.35\.4 /);
  });

  it('pull asks the registry for every image online (recorded) and stops at the first offline', async () => {
    const stateDir = await testTempDir('state');
    const online = await host(stateDir, 'a', '10.9.0.2');
    const pulled = await online.run('kubeadm', [
      'config',
      'images',
      'pull',
      '--kubernetes-version',
      `v${VERSION}`,
    ]);
    const images = kubeadmImageList(KUBEADM, VERSION);
    expect(pulled.stdout).toBe(images.map((i) => `[config/images] Pulled ${i}\n`).join(''));
    expect((await hostState(online)).images).toEqual([...images].sort());
    expect((await hostState(online)).network).toHaveLength(images.length);
    const offline = await host(stateDir, 'b', '10.9.0.3', { offline: true, images });
    const failed = await offline.run('kubeadm', [
      'config',
      'images',
      'pull',
      '--kubernetes-version',
      `v${VERSION}`,
    ]);
    expect(failed.code).toBe(1);
    const first = images[0]!;
    expect(failed.stderr).toBe(
      // kubeadm >= 1.36 puts `error: ` before a failed command's error (KubeadmRelease.errorPrefix).
      `error: failed to pull image "${first}": failed to pull image ${first}: ${offlinePull(first, `kube-apiserver/manifests/v${VERSION}`)}\nTo see the stack trace of this error execute with --v=5 or higher\n`,
    );
  });
});

describe('kubeadm init: the ImagePull preflight', () => {
  it('online, the images containerd lacks are pulled (each a recorded attempt); those it has are kept', async () => {
    const stateDir = await testTempDir('state');
    const images = kubeadmImageList(KUBEADM, VERSION);
    const h = await host(stateDir, 'cp1', '10.9.0.2', { images: images.slice(0, 5) });
    const r = await init(h, 'cp1', '10.9.0.2');
    expect(r.stderr).toBe('');
    expect(r.stdout).toContain(`[preflight] Running pre-flight checks\n${PULLING}\n`);
    const state = await hostState(h);
    const etcdTag = images.at(-1)!.split(':')[1]!;
    expect(state.network).toEqual([
      `containerd https://registry.k8s.io/v2/pause/manifests/${KUBEADM.pause}`,
      `containerd https://registry.k8s.io/v2/etcd/manifests/${etcdTag}`,
    ]);
    expect(state.images).toEqual([...images].sort());
  });

  it("offline, a missing image fails with kubeadm's ImagePull error: a wrong kubeadm-images entry in the product is caught", async () => {
    const stateDir = await testTempDir('state');
    // What offline mode would import if playbooks/artifacts.yaml named another etcd for the minor.
    const list = loadArtifactsFile();
    const minor = VERSION.split('.').slice(0, 2).join('.');
    const wrong = {
      ...list,
      'kubeadm-images': {
        ...list['kubeadm-images'],
        [minor]: { ...list['kubeadm-images'][minor]!, etcd: '3.5.0-0' },
      },
    };
    const h = await host(stateDir, 'cp1', '10.9.0.2', { offline: true, images: productImages(wrong) });
    const r = await init(h, 'cp1', '10.9.0.2');
    expect(r.code).toBe(1);
    const etcd = kubeadmImageList(KUBEADM, VERSION).at(-1)!;
    const tag = etcd.split(':')[1]!;
    expect(r.stderr).toBe(
      [
        '[preflight] Some fatal errors occurred:',
        `\t[ERROR ImagePull]: failed to pull image ${etcd}: failed to pull image ${etcd}: ${offlinePull(etcd, `etcd/manifests/${tag}`)}`,
        '[preflight] If you know what you are doing, you can make a check non-fatal with `--ignore-preflight-errors=...`',
        'error: error execution phase preflight: preflight checks failed',
        'To see the stack trace of this error execute with --v=5 or higher',
        '',
      ].join('\n'),
    );
    expect((await hostState(h)).network).toEqual([
      `containerd https://registry.k8s.io/v2/etcd/manifests/${tag}`,
    ]);
    expect(await ClusterState.open(stateDir).cluster()).toBeUndefined();
    // With the product's own table, nothing is missing.
    const right = await host(stateDir, 'cp2', '10.9.0.3', { offline: true, images: productImages() });
    const ok = await init(right, 'cp2', '10.9.0.3');
    expect(ok.stderr).toBe('');
    expect((await hostState(right)).network ?? []).toEqual([]);
  });

  it('warns of a different sandbox image only where the CRI reports one: containerd 1.x, not 2.x', async () => {
    const stateDir = await testTempDir('state');
    const debian = await host(stateDir, 'cp1', '10.9.0.2', { containerd: '1.7.24~ds1-6+deb13u1' });
    const warned = await init(debian, 'cp1', '10.9.0.2');
    expect(warned.code).toBe(0);
    expect(warned.stderr).toBe(
      `W0101 00:00:00.000000       1 checks.go:${KUBEADM.sandboxWarning.line}] detected that the sandbox image "registry.k8s.io/pause:3.8" of the container runtime is inconsistent with that used by kubeadm. It is recommended to use "${KUBEADM_PAUSE}" as the CRI sandbox image.\n`,
    );
    await debian.run('kubeadm', ['reset', '-f']);
    // containerd 2.x's status has no sandboxImage: kubeadm says nothing, even when they differ.
    const release = await host(stateDir, 'cp2', '10.9.0.3', {
      config: renderString(OLD_CONTAINERD_TEMPLATE, {}),
    });
    const silent = await init(release, 'cp2', '10.9.0.3');
    expect(silent.stderr).toBe('');
    expect((await hostState(release)).network).toContain(
      'containerd https://registry.k8s.io/v2/pause/manifests/3.10',
    );
  });
});

describe('offline: the sandbox image containerd is configured with must be there', () => {
  it('with the old template (pause:3.10) kubeadm init fails at wait-control-plane; with the current one it succeeds', async () => {
    const stateDir = await testTempDir('state');
    const images = productImages();
    const old = await host(stateDir, 'cp1', '10.9.0.2', {
      offline: true,
      images,
      config: renderString(OLD_CONTAINERD_TEMPLATE, {}),
    });
    const failed = await init(old, 'cp1', '10.9.0.2');
    expect(failed.code).toBe(1);
    expect(failed.stdout).toMatch(/\[kubelet-start\] Starting the kubelet\n$/);
    expect(failed.stderr).toBe(
      'error: error execution phase wait-control-plane: cannot obtain client without bootstrap: could not bootstrap the admin user in file admin.conf: unable to create ClusterRoleBinding: Post "https://10.9.0.2:6443/apis/rbac.authorization.k8s.io/v1/clusterrolebindings?timeout=10s": dial tcp 10.9.0.2:6443: connect: connection refused\nTo see the stack trace of this error execute with --v=5 or higher\n',
    );
    // containerd tried the registry for its sandbox image; no cluster came of it.
    expect((await hostState(old)).network).toEqual([
      'containerd https://registry.k8s.io/v2/pause/manifests/3.10',
    ]);
    expect(await ClusterState.open(stateDir).cluster()).toBeUndefined();

    const current = await host(stateDir, 'cp2', '10.9.0.3', {
      offline: true,
      images,
      config: await currentConfig(),
    });
    const ok = await init(current, 'cp2', '10.9.0.3');
    expect(ok.stderr).toBe('');
    expect(ok.code).toBe(0);
    expect((await hostState(current)).network ?? []).toEqual([]);
  });

  it("a joined worker's pods cannot start their sandboxes until the image is imported", async () => {
    const stateDir = await testTempDir('state');
    const cp = await host(stateDir, 'cp1', '10.9.0.2', { images: kubeadmImageList(KUBEADM, VERSION) });
    expect((await init(cp, 'cp1', '10.9.0.2')).stderr).toBe('');
    const w = await host(stateDir, 'w1', '10.9.0.3', {
      offline: true,
      config: renderString(OLD_CONTAINERD_TEMPLATE, {}),
    });
    const joined = await w.run('kubeadm', (await printJoinCommand(cp)).slice(1));
    expect(joined.stderr).toBe('');
    const state = ClusterState.open(stateDir);
    // kube-proxy (host network) on w1: containerd 2.x looks for the sandbox image after the network step.
    const sandboxEvents = async () => {
      const onW1 = (await state.pods('kube-system'))
        .filter((p) => (p['spec'] as { nodeName?: string }).nodeName === 'w1')
        .map((p) => `pod/${p.metadata.name}`);
      expect(onW1).toHaveLength(1);
      return (await state.events('kube-system')).filter(
        (e) => e.reason === 'FailedCreatePodSandBox' && onW1.includes(e.object),
      );
    };
    expect((await sandboxEvents()).map((e) => e.message)).toEqual([
      `Failed to create pod sandbox: rpc error: code = Unknown desc = failed to pull image "registry.k8s.io/pause:3.10": failed to pull and unpack image "registry.k8s.io/pause:3.10": failed to resolve image: failed to do request: Head "https://registry.k8s.io/v2/pause/manifests/3.10": dial tcp: lookup registry.k8s.io: no such host`,
    ]);
    const archive = join(w.root, 'pause.tar');
    await buildOciImageArchive(archive, 'registry.k8s.io/pause:3.10');
    expect((await w.run('ctr', ['-n', 'k8s.io', 'images', 'import', archive])).code).toBe(0);
    expect(await sandboxEvents()).toEqual([]);
  });
});

describe("containerd's configuration as it starts", () => {
  it('a file it cannot load fails systemctl restart; Debian 1.7 refuses version 3', async () => {
    const stateDir = await testTempDir('state');
    const h = await host(stateDir, 'a', '10.9.0.2');
    await writeFile(join(h.root, 'etc/containerd/config.toml'), 'version = 3\n[plugins\n');
    const r = await h.run('systemctl', ['restart', 'containerd']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /^kubemix lab: containerd\.service's journal: containerd: failed to unmarshal TOML at row 2 column \d+: kubemix lab: .+\nJob for containerd\.service failed because the control process exited with error code\.\nSee "systemctl status containerd\.service" and "journalctl -xeu containerd\.service" for details\.\n$/,
    );
    expect((await h.run('systemctl', ['is-active', 'containerd'])).stdout).toBe('inactive\n');

    const debian = await host(stateDir, 'b', '10.9.0.3', { containerd: '1.7.24~ds1-6+deb13u1' });
    await writeFile(join(debian.root, 'etc/containerd/config.toml'), await currentConfig());
    const refused = await debian.run('systemctl', ['restart', 'containerd']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(
      'containerd: failed to load TOML from /etc/containerd/config.toml: unsupported config version `3`',
    );
  });
});
