import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { beforeAll, describe, expect, it } from 'vitest';
import { K8S_PACKAGES } from '../../fixtures/lab/standins/tools/apt.js';
import { type BuiltRelease, builtRelease } from '../../fixtures/release/built-release.js';
import { buildKubernetesDebs, type ReleaseDeb } from '../../fixtures/release/kubernetes-debs.js';
import { buildReleaseImage, RELEASE_IMAGES } from '../../fixtures/release/release-images.js';
import { type Artifact, loadArtifactsFile, renderArtifacts } from '../../src/artifacts/index.js';
import { buildPlan } from '../../src/plan/index.js';
import { loadSpec } from '../../src/spec/index.js';
import { loadVersions } from '../../src/versions/versions.js';
import { testTempDir } from '../helpers/temp.js';

// The real programs of the pinned release (scripts/release/, built by scripts/setup.sh into
// ~/.cache/kubemix/release) packed as kubemix's offline mode consumes them: pkgs.k8s.io's
// packages in the shape kubernetes/release's specs give (fixtures/release/kubernetes-debs.ts) and
// the container images under the names kubeadm and the manifests use, each running its program
// the way the upstream image does (fixtures/release/release-images.ts). Read back with the real
// dpkg-deb, and each image's root entered with chroot to run what its pod would run.
const root = fileURLToPath(new URL('../..', import.meta.url));
let release: BuiltRelease;
let debs: Record<string, ReleaseDeb>;
let images: Artifact[];

async function debListing(deb: string): Promise<string[]> {
  const { stdout } = await execa('dpkg-deb', ['--contents', deb]);
  // "-rwxr-xr-x root/root 12345 2026-11-29 10:00 ./usr/bin/kubelet" -> "-rwxr-xr-x /usr/bin/kubelet"
  return stdout
    .split('\n')
    .map((line) => line.split(/\s+/))
    .filter((f) => !f[0]!.startsWith('d'))
    .map((f) => `${f[0]} ${f[5]!.replace(/^\./, '')}`)
    .sort();
}

async function field(deb: string, name: string): Promise<string> {
  return (await execa('dpkg-deb', ['--field', deb, name])).stdout;
}

/** Unpacks an OCI archive's one layer into a directory; returns it and the image's name and config. */
async function unpackImage(archive: string) {
  const dir = await testTempDir('release-image');
  await execa('tar', ['-xf', archive, '-C', dir]);
  const blob = (digest: string) => join(dir, 'blobs', 'sha256', digest.replace(/^sha256:/, ''));
  const index = JSON.parse(await readFile(join(dir, 'index.json'), 'utf8'));
  const entry = index.manifests[0];
  const manifest = JSON.parse(await readFile(blob(entry.digest), 'utf8'));
  const config = JSON.parse(await readFile(blob(manifest.config.digest), 'utf8'));
  const rootfs = join(dir, 'rootfs');
  await execa('mkdir', [rootfs]);
  await execa('tar', [
    '--xattrs',
    '--xattrs-include=*',
    '-xzf',
    blob(manifest.layers[0].digest),
    '-C',
    rootfs,
  ]);
  return { name: entry.annotations['io.containerd.image.name'] as string, config: config.config, rootfs };
}

/** Runs a program inside an image's root, as its container would see the filesystem. */
async function inImage(rootfs: string, program: string, args: string[]) {
  return execa('chroot', [rootfs, program, ...args], { reject: false, all: true });
}

beforeAll(async () => {
  release = builtRelease();
  const made = await buildKubernetesDebs(release, await testTempDir('release-debs'));
  debs = Object.fromEntries(made.map((d) => [d.name, d]));
  const { spec } = await loadSpec(join(root, 'fixtures/specs/valid/minimal.yaml'));
  const plan = buildPlan({ spec, versions: loadVersions(spec.versions ?? {}) });
  images = renderArtifacts(loadArtifactsFile(), plan.vars).filter(
    (a) => a.kind === 'image' && a.os === 'linux',
  );
}, 600_000);

describe("pkgs.k8s.io's packages, made from the built release", () => {
  it('are the five packages kubemix installs, at the release and the pinned CNI plugins and crictl', () => {
    expect(Object.values(debs).map((d) => `${d.name}_${d.version}`)).toEqual([
      `kubelet_${release.kubernetesVersion}-1.1`,
      `kubeadm_${release.kubernetesVersion}-1.1`,
      `kubectl_${release.kubernetesVersion}-1.1`,
      `kubernetes-cni_${release.versions.cniPlugins}-1.1`,
      `cri-tools_${release.versions.crictl}-1.1`,
    ]);
  });

  it('kubelet: the program, its unit, the kept directories and /etc/default/kubelet as a conffile (kubelet.spec)', async () => {
    const { deb } = debs['kubelet']!;
    expect(await debListing(deb)).toEqual([
      '-rw-r--r-- /etc/default/kubelet',
      '-rw-r--r-- /etc/kubernetes/manifests/.kubelet-keep',
      '-rw-r--r-- /usr/lib/systemd/system/kubelet.service',
      '-rw-r--r-- /var/lib/kubelet/.kubelet-keep',
      '-rwxr-xr-x /usr/bin/kubelet',
    ]);
    expect(await field(deb, 'Depends')).toBe(
      'iptables (>= 1.4.21), kubernetes-cni (>= 1.2.0), mount, util-linux',
    );
    const control = await testTempDir('kubelet-control');
    await execa('dpkg-deb', ['--control', deb, control]);
    expect(await readFile(join(control, 'conffiles'), 'utf8')).toBe('/etc/default/kubelet\n');
  });

  it('kubeadm: the program and the kubelet drop-in reading /etc/default/kubelet, no dependencies (kubeadm.spec, metadata.yaml >= 1.32)', async () => {
    const { deb } = debs['kubeadm']!;
    expect(await debListing(deb)).toEqual([
      '-rw-r--r-- /usr/lib/systemd/system/kubelet.service.d/10-kubeadm.conf',
      '-rwxr-xr-x /usr/bin/kubeadm',
    ]);
    expect(await field(deb, 'Depends')).toBe('');
    const unpacked = await testTempDir('kubeadm-deb');
    await execa('dpkg-deb', ['-x', deb, unpacked]);
    const dropIn = await readFile(
      join(unpacked, 'usr/lib/systemd/system/kubelet.service.d/10-kubeadm.conf'),
      'utf8',
    );
    expect(dropIn).toContain('EnvironmentFile=-/etc/default/kubelet\n');
    expect(dropIn).not.toContain('sysconfig');
    const version = await execa(join(unpacked, 'usr/bin/kubeadm'), ['version', '-o', 'short']);
    expect(version.stdout).toBe(`v${release.kubernetesVersion}`);
  });

  it('kubernetes-cni: containernetworking/plugins in /opt/cni/bin without the flannel plugin; cri-tools: crictl', async () => {
    const cni = await debListing(debs['kubernetes-cni']!.deb);
    expect(cni).toContain('-rwxr-xr-x /opt/cni/bin/bridge');
    expect(cni).toContain('-rwxr-xr-x /opt/cni/bin/host-local');
    expect(cni).toContain('-rwxr-xr-x /opt/cni/bin/portmap');
    expect(cni).toContain('-rw-r--r-- /etc/cni/net.d/.kubernetes-cni-keep');
    expect(cni.some((line) => line.endsWith('/flannel'))).toBe(false);
    expect(await debListing(debs['cri-tools']!.deb)).toEqual(['-rwxr-xr-x /usr/bin/crictl']);
    expect(await debListing(debs['kubectl']!.deb)).toEqual(['-rwxr-xr-x /usr/bin/kubectl']);
  });
});

describe("the lab's model of the packages (fixtures/lab/standins/tools/apt.ts)", () => {
  it('depends on the same pkgs.k8s.io packages as the packages made from the release do', async () => {
    const names = Object.keys(K8S_PACKAGES);
    for (const name of names) {
      const real = (await field(debs[name]!.deb, 'Depends'))
        .split(',')
        .map((d) => d.trim().split(/\s/)[0]!)
        .filter((d) => names.includes(d));
      expect(K8S_PACKAGES[name], name).toEqual(real);
    }
  });
});

describe('the container images of the built release', () => {
  it('are made for every Linux image kubemix imports', () => {
    expect(images.map((a) => a.name).sort()).toEqual([...RELEASE_IMAGES].sort());
  });

  // What each image's pod runs, and what it must print: the program by the path or name its
  // manifest uses (kubeadm's static pods and DaemonSet run control-plane programs by name).
  const runs: Record<string, { program: string; args: string[]; prints: (r: BuiltRelease) => string }> = {
    'kube-apiserver': {
      program: 'kube-apiserver',
      args: ['--version'],
      prints: (r) => `Kubernetes v${r.kubernetesVersion}`,
    },
    'kube-controller-manager': {
      program: 'kube-controller-manager',
      args: ['--version'],
      prints: (r) => `Kubernetes v${r.kubernetesVersion}`,
    },
    'kube-scheduler': {
      program: 'kube-scheduler',
      args: ['--version'],
      prints: (r) => `Kubernetes v${r.kubernetesVersion}`,
    },
    'kube-proxy': {
      program: '/usr/local/bin/kube-proxy',
      args: ['--version'],
      prints: (r) => `Kubernetes v${r.kubernetesVersion}`,
    },
    etcd: { program: 'etcd', args: ['--version'], prints: () => 'etcd Version: ' },
    coredns: { program: '/coredns', args: ['-version'], prints: () => 'CoreDNS-' },
    pause: { program: '/pause', args: ['-v'], prints: () => 'pause.c v' },
    flannel: { program: '/opt/bin/flanneld', args: ['--version'], prints: () => 'v0.' },
    'flannel-cni-plugin': { program: '/flannel', args: [], prints: () => 'CNI flannel plugin v' },
    agnhost: { program: '/agnhost', args: ['--version'], prints: () => 'app version ' },
  };

  it('hold the real programs, which run inside the image as its pod runs them', async () => {
    for (const artifact of images) {
      const archive = join(await testTempDir('release-image-archive'), artifact.file);
      await buildReleaseImage(archive, artifact, release);
      const image = await unpackImage(archive);
      expect(image.name).toBe(artifact.image);
      const run = runs[artifact.name]!;
      // chroot looks a bare name up in this process's PATH, inside the new root: the image's PATH.
      const program = run.program.startsWith('/') ? run.program : `/usr/local/bin/${run.program}`;
      const result = await inImage(image.rootfs, program, run.args);
      expect(result.all, artifact.name).toContain(run.prints(release));
      if (artifact.name === 'kube-proxy' || artifact.name === 'flannel') {
        // Their iptables: Debian 13's, in its nf_tables variant, with every library it loads.
        const iptables = await inImage(image.rootfs, '/usr/sbin/iptables', ['--version']);
        expect(iptables.all, artifact.name).toBe('iptables v1.8.11 (nf_tables)');
        const restore = await inImage(image.rootfs, '/usr/sbin/iptables-restore', ['--version']);
        expect(restore.all, artifact.name).toContain('(nf_tables)');
      }
      if (artifact.name === 'flannel-cni-plugin') {
        // kube-flannel.yml's init container: `cp -f /flannel /opt/cni/bin/flannel`.
        await execa('mkdir', ['-p', join(image.rootfs, 'opt/cni/bin')]);
        const copy = await inImage(image.rootfs, 'cp', ['-f', '/flannel', '/opt/cni/bin/flannel']);
        expect(copy.exitCode, copy.all).toBe(0);
      }
      if (artifact.name === 'coredns') {
        // Its nonroot user binds port 53 through the file capability its Dockerfile sets.
        const caps = await execa('getcap', [join(image.rootfs, 'coredns')]);
        expect(caps.stdout).toMatch(/cap_net_bind_service=ep$/);
        expect(image.config.User).toBe('65532:65532');
      }
      if (artifact.name === 'flannel') {
        const install = await inImage(image.rootfs, '/opt/bin/install-conf', ['--help']);
        expect(install.all).not.toMatch(/no such file|not found/i);
      }
    }
  }, 300_000);
});
