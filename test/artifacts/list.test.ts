import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import {
  type Artifact,
  loadArtifactsFile,
  parseArtifactsFile,
  renderArtifacts,
} from '../../src/artifacts/index.js';
import { SpecError } from '../../src/errors/index.js';
import { buildPlan } from '../../src/plan/index.js';
import { loadSpec } from '../../src/spec/index.js';
import { type ClusterSpecInput, clusterSpecSchema } from '../../src/spec/schema.js';
import { renderString } from '../../src/template/index.js';
import { loadVersions } from '../../src/versions/versions.js';
import { testTempDir } from '../helpers/temp.js';

const list = loadArtifactsFile();

function spec(input: {
  windows?: number;
  windowsVersion?: '2019' | '2022';
  versions?: Record<string, string>;
}) {
  const windows = input.windows ?? 1;
  const raw: ClusterSpecInput = {
    name: 'lab',
    provider: {
      type: 'static',
      hosts: [
        { name: 'cp1', address: '10.0.0.11', group: 'control-plane' },
        ...Array.from({ length: windows }, (_, i) => ({
          name: `win${i + 1}`,
          address: `10.0.0.${20 + i}`,
          group: 'windows',
        })),
      ],
    },
    nodes: {
      controlPlane: { count: 1 },
      workers:
        windows > 0
          ? [
              {
                name: 'windows',
                os: 'windows',
                count: windows,
                windowsVersion: input.windowsVersion ?? '2022',
              },
            ]
          : [],
    },
    ...(input.versions ? { versions: input.versions } : {}),
  };
  return clusterSpecSchema.parse(raw);
}

function render(input: Parameters<typeof spec>[0] = {}): {
  artifacts: Artifact[];
  vars: Record<string, unknown>;
} {
  const s = spec(input);
  const plan = buildPlan({ spec: s, versions: loadVersions(s.versions ?? {}) });
  return { artifacts: renderArtifacts(list, plan.vars), vars: plan.vars };
}

const byName = (artifacts: Artifact[], name: string) => {
  const found = artifacts.find((a) => a.name === name);
  if (!found) throw new Error(`no artifact ${name}`);
  return found;
};

describe('playbooks/artifacts.yaml rendered for a spec', () => {
  it("takes the Kubernetes packages from pkgs.k8s.io's index for the cluster's release, no revision assumed", () => {
    const { artifacts } = render();
    const version = loadVersions()['kubernetes']!;
    const minor = version.split('.').slice(0, 2).join('.');
    const repository = `https://pkgs.k8s.io/core:/stable:/v${minor}/deb/`;
    expect(byName(artifacts, 'kubelet')).toEqual({
      name: 'kubelet',
      os: 'linux',
      kind: 'deb',
      file: '',
      apt: { repository, package: 'kubelet', release: version },
    });
    expect(byName(artifacts, 'kubeadm').apt).toEqual({ repository, package: 'kubeadm', release: version });
    expect(byName(artifacts, 'kubectl').apt).toEqual({ repository, package: 'kubectl', release: version });
    // The dependencies at whatever version the repository's newest is, as apt installs them.
    expect(byName(artifacts, 'kubernetes-cni').apt).toEqual({ repository, package: 'kubernetes-cni' });
    expect(byName(artifacts, 'cri-tools').apt).toEqual({ repository, package: 'cri-tools' });
  });

  it('carries both containerd sources, each file pinned by version and SHA-256 from versions.yaml', () => {
    const { artifacts } = render();
    const v = loadVersions();
    const containerd = artifacts.filter((a) => /^(containerd|runc)-/.test(a.name) && a.os === 'linux');
    expect(containerd.map((a) => [a.name, a.kind, a.file, a.sha256])).toEqual([
      [
        'containerd-debian-13',
        'deb',
        `containerd_${v['debian-13-containerd']}_amd64.deb`,
        v['debian-13-containerd-sha256'],
      ],
      ['runc-debian-13', 'deb', `runc_${v['debian-13-runc']}_amd64.deb`, v['debian-13-runc-sha256']],
      [
        'containerd-linux',
        'file',
        `containerd-${v['containerd-linux']}-linux-amd64.tar.gz`,
        v['containerd-linux-sha256'],
      ],
      ['runc-linux', 'file', `runc-${v['runc-linux']}.amd64`, v['runc-linux-sha256']],
      [
        'containerd-linux-service',
        'file',
        `containerd-${v['containerd-linux']}.service`,
        v['containerd-linux-service-sha256'],
      ],
    ]);
    expect(byName(artifacts, 'containerd-debian-13').url).toBe(
      `https://deb.debian.org/debian/pool/main/c/containerd/containerd_${v['debian-13-containerd']}_amd64.deb`,
    );
  });

  it('downloads the static release from the URLs, under the names, that prepare-linux uses online', async () => {
    const { artifacts, vars } = render();
    const tasks = parse(
      await readFile(
        fileURLToPath(new URL('../../playbooks/cluster/prepare-linux.yml', import.meta.url)),
        'utf8',
      ),
    ) as {
      name: string;
      shell?: string;
    }[];
    const step = tasks.find((t) => t.name.startsWith("containerd from containerd's static release"))!;
    const script = renderString(step.shell!, vars);
    // The playbook quotes every value it splices (bare when it needs no quotes, as shlex.quote).
    const word = (quoted: string) => quoted.replace(/^'(.*)'$/, '$1');
    const names = Object.fromEntries(
      [...script.matchAll(/^(\w+)=(\S+)$/gm)].map((m) => [m[1]!, word(m[2]!)]),
    );
    const online = [...script.matchAll(/curl -fsSL --retry 3 -o "\$dir\/\$(\w+)" (\S+)$/gm)].map((m) => [
      names[m[1]!],
      word(m[2]!),
    ]);
    expect(online).toHaveLength(3);
    expect(online).toEqual(
      ['containerd-linux', 'runc-linux', 'containerd-linux-service'].map((n) => [
        byName(artifacts, n).file,
        byName(artifacts, n).url,
      ]),
    );
  });

  it('lists exactly the images the rendered manifests reference, and kubeadm images for the minor', () => {
    const { artifacts, vars } = render();
    const images = vars['images'] as Record<string, string>;
    const version = vars['kubernetes_version'] as string;
    expect(byName(artifacts, 'flannel').image).toBe(images['flannel']);
    expect(byName(artifacts, 'flannel-cni-plugin').image).toBe(images['flannel_cni_plugin']);
    expect(byName(artifacts, 'windows-hostprocess-base').image).toBe(images['windows_flannel']);
    expect(byName(artifacts, 'windows-kube-proxy').image).toBe(images['windows_kube_proxy']);
    // verify's Linux workload (linux-netexec.yaml.j2 names images.agnhost), for Linux nodes.
    expect(byName(artifacts, 'agnhost')).toMatchObject({ os: 'linux', image: images['agnhost'] });
    const workloads = vars['windows_workloads'] as { version: string; image: string }[];
    expect(workloads.map((w) => byName(artifacts, `servercore-${w.version}`).image)).toEqual(
      workloads.map((w) => w.image),
    );
    expect(byName(artifacts, 'kube-apiserver').image).toBe(`registry.k8s.io/kube-apiserver:v${version}`);
    const kubeadmImages = loadArtifactsFile()['kubeadm-images'][version.split('.').slice(0, 2).join('.')]!;
    expect(byName(artifacts, 'etcd').image).toBe(`registry.k8s.io/etcd:${kubeadmImages.etcd}`);
    // containerd's sandbox on both OSes is kubeadm's pause: the one image offline mode carries.
    expect([byName(artifacts, 'pause').image, byName(artifacts, 'windows-pause').image]).toEqual([
      `registry.k8s.io/pause:${kubeadmImages.pause}`,
      `registry.k8s.io/pause:${kubeadmImages.pause}`,
    ]);
    for (const a of artifacts.filter((x) => x.kind === 'image')) {
      expect(a.url).toBeUndefined();
      expect(a.file).toMatch(/\.tar$/);
    }
  });

  it("marks kubeadm's control-plane images for the controllers only, and nothing a worker runs", () => {
    const { artifacts } = render();
    const images = artifacts.filter((a) => a.kind === 'image' && a.os === 'linux');
    // kubeadm's static Pods (kube-apiserver, -controller-manager, -scheduler, etcd) run on
    // control-plane nodes only; kube-proxy, CoreDNS, pause, flannel and verify's agnhost can run on any node.
    expect(
      images
        .filter((a) => a.role === 'control-plane')
        .map((a) => a.name)
        .sort(),
    ).toEqual(['etcd', 'kube-apiserver', 'kube-controller-manager', 'kube-scheduler']);
    for (const name of ['kube-proxy', 'coredns', 'pause', 'flannel', 'flannel-cni-plugin', 'agnhost'])
      expect(byName(artifacts, name).role, name).toBeUndefined();
    expect(artifacts.filter((a) => a.os === 'windows' && a.role !== undefined)).toEqual([]);
  });

  it('names the Windows downloads after the last segment of their URL (the offline script shim looks them up so)', () => {
    const { artifacts } = render();
    const windows = artifacts.filter((a) => a.os === 'windows' && a.kind !== 'image');
    expect(windows.map((a) => a.name).sort()).toEqual([
      'cni-plugins-windows',
      'containerd-windows',
      'crictl-windows',
      'flannel-cni-plugin-windows',
      'flanneld-windows',
      'install-containerd-script',
      'kubeadm-windows',
      'kubelet-windows',
      'nssm',
      'prepare-node-script',
      'windows-cni',
    ]);
    for (const a of windows) expect(a.file).toBe(new URL(a.url!).pathname.split('/').pop());
    const versions = loadVersions();
    expect(byName(artifacts, 'install-containerd-script').url).toContain(
      versions['install-containerd-script'],
    );
    expect(byName(artifacts, 'containerd-windows').file).toBe(
      `containerd-${versions['containerd']}-windows-amd64.tar.gz`,
    );
  });

  it('follows the spec: versions overrides, Windows Server version, no Windows entries without Windows nodes', () => {
    const { artifacts } = render({
      windowsVersion: '2019',
      versions: {
        containerd: '1.7.99',
        flannel: 'v0.26.0',
        'containerd-linux': '2.3.5',
        'containerd-linux-sha256': 'ab'.repeat(32),
      },
    });
    expect(byName(artifacts, 'containerd-windows').url).toContain(
      '/v1.7.99/containerd-1.7.99-windows-amd64.tar.gz',
    );
    expect(byName(artifacts, 'flannel').image).toBe('docker.io/flannel/flannel:v0.26.0');
    expect(byName(artifacts, 'servercore-2019')).toMatchObject({
      image: 'mcr.microsoft.com/windows/servercore:ltsc2019',
      file: 'servercore-ltsc2019.tar',
      windowsVersion: '2019',
    });
    expect(artifacts.some((a) => a.name === 'servercore-2022')).toBe(false);
    // An overridden static release comes with its digest (loadVersions refuses one without).
    expect(byName(artifacts, 'containerd-linux')).toMatchObject({
      file: 'containerd-2.3.5-linux-amd64.tar.gz',
      url: 'https://github.com/containerd/containerd/releases/download/v2.3.5/containerd-2.3.5-linux-amd64.tar.gz',
      sha256: 'ab'.repeat(32),
    });
    const linuxOnly = render({ windows: 0 }).artifacts;
    expect(linuxOnly.some((a) => a.os === 'windows')).toBe(false);
    expect(linuxOnly.map((a) => a.name)).toEqual(expect.arrayContaining(['kubelet', 'agnhost']));
  });

  it('gives every artifact its own plain file name (a repository package gets its name from the index)', () => {
    const { artifacts } = render();
    const named = artifacts.filter((a) => !a.apt);
    expect(new Set(named.map((a) => a.file)).size).toBe(named.length);
    for (const a of named) expect(a.file).not.toMatch(/^$|[/\\]/);
    for (const a of artifacts.filter((x) => x.apt)) expect(a.file).toBe('');
  });

  it('lists one Server Core image per Windows Server version of the cluster, each for its version only', () => {
    const s = spec({ windows: 2, windowsVersion: '2019' });
    const twoVersions = {
      ...s,
      nodes: {
        ...s.nodes,
        workers: [
          { ...s.nodes.workers[0]!, count: 1 },
          { ...s.nodes.workers[0]!, name: 'windows-2022', windowsVersion: '2022' as const, count: 1 },
        ],
      },
      provider: {
        ...s.provider,
        hosts:
          s.provider.type === 'static'
            ? s.provider.hosts.map((h) => (h.name === 'win2' ? { ...h, group: 'windows-2022' } : h))
            : [],
      },
    } as typeof s;
    const plan = buildPlan({ spec: twoVersions, versions: loadVersions() });
    const images = renderArtifacts(list, plan.vars).filter((a) => a.name.startsWith('servercore'));
    expect(images.map((a) => [a.name, a.image, a.file, a.windowsVersion])).toEqual([
      ['servercore-2019', 'mcr.microsoft.com/windows/servercore:ltsc2019', 'servercore-ltsc2019.tar', '2019'],
      ['servercore-2022', 'mcr.microsoft.com/windows/servercore:ltsc2022', 'servercore-ltsc2022.tar', '2022'],
    ]);
  });

  it('names the missing kubeadm image table for a Kubernetes minor it does not know', () => {
    const s = spec({ windows: 0 });
    const plan = buildPlan({ spec: { ...s, kubernetes: { version: '1.40.1' } }, versions: loadVersions() });
    expect(() => renderArtifacts(list, plan.vars)).toThrowError(SpecError);
    expect(() => renderArtifacts(list, plan.vars)).toThrowError(
      /kubeadm-images\."1\.40": no kubeadm image versions/,
    );
  });
});

describe('parseArtifactsFile', () => {
  it('rejects bad entries naming the file and the field', () => {
    const text = `kubeadm-images: { "1.31": { etcd: a, coredns: b, pause: c } }
artifacts:
  - { name: a, os: linux, kind: deb, file: a.deb }
  - { name: a, os: solaris, kind: image, image: x, file: x.tar }
  - { name: b, os: linux, kind: image, image: y, file: y.tar, role: worker }
`;
    let error: SpecError | undefined;
    try {
      parseArtifactsFile(text, 'my-artifacts.yaml');
    } catch (e) {
      error = e as SpecError;
    }
    expect(error).toBeInstanceOf(SpecError);
    expect(error!.exitCode).toBe(2);
    expect(error!.message).toContain('my-artifacts.yaml: artifacts.1.os');
    expect(error!.message).toContain('my-artifacts.yaml: artifacts.2.role');
    expect(error!.message).toContain(
      'my-artifacts.yaml: artifacts.0: an image entry has `image` and `file`; an `apt` entry is a deb with neither `url` nor `file`; any other entry has `url` and `file`',
    );
  });

  it('rejects two entries with one name', () => {
    const text = `kubeadm-images: {}
artifacts:
  - { name: a, os: linux, kind: deb, file: a.deb, url: "http://x/a.deb" }
  - { name: a, os: linux, kind: deb, file: b.deb, url: "http://x/b.deb" }
`;
    expect(() => parseArtifactsFile(text, 'l.yaml')).toThrowError(
      'l.yaml: artifacts.1.name: "a" is already entry 0',
    );
  });

  it("carries the publisher's digest file of each Windows flannel download whose release publishes one", () => {
    const { artifacts } = render();
    const digests = Object.fromEntries(
      ['flanneld-windows', 'flannel-cni-plugin-windows', 'cni-plugins-windows', 'windows-cni'].map((n) => [
        n,
        byName(artifacts, n).digest,
      ]),
    );
    // flannel publishes no digest of flanneld.exe; the archives' releases publish .sha512 beside them.
    expect(digests['flanneld-windows']).toBeUndefined();
    for (const name of ['flannel-cni-plugin-windows', 'cni-plugins-windows', 'windows-cni'])
      expect(digests[name]).toEqual({ url: `${byName(artifacts, name).url}.sha512`, algorithm: 'sha512' });
  });

  it('rejects a digest file without an algorithm it knows, naming the field', () => {
    const text = `kubeadm-images: { "1.31": { etcd: a, coredns: b, pause: c } }
artifacts:
  - { name: a, os: linux, kind: file, file: a.tgz, url: "http://x/a.tgz", digest_url: "http://x/a.tgz.md5", digest_algorithm: md5 }
`;
    expect(() =>
      renderArtifacts(parseArtifactsFile(text, 'l.yaml'), { kubernetes_version: '1.31.2' }, 'l.yaml'),
    ).toThrowError(
      'l.yaml: artifacts.0.digest_algorithm: digest_url "http://x/a.tgz.md5" needs digest_algorithm sha256 or sha512 (got "md5")',
    );
  });

  it('rejects a rendered file name with a path in it', () => {
    const text = `kubeadm-images: { "1.31": { etcd: a, coredns: b, pause: c } }
artifacts:
  - { name: a, os: linux, kind: deb, file: "../{{ kubernetes_version }}.deb", url: "http://x/a.deb" }
`;
    expect(() =>
      renderArtifacts(parseArtifactsFile(text, 'l.yaml'), { kubernetes_version: '1.31.2' }, 'l.yaml'),
    ).toThrowError('l.yaml: artifacts.0.file: "../1.31.2.deb" must be a plain file name');
  });
});

describe('spec artifacts.dir', () => {
  it('is resolved against the spec file and reaches the playbooks as artifacts_dir', async () => {
    const dir = await testTempDir('artifacts-spec');
    const path = join(dir, 'lab.yaml');
    await writeFile(
      path,
      `name: lab
provider:
  type: static
  hosts: [{ name: cp1, address: 10.0.0.11, group: control-plane }]
artifacts:
  dir: offline/files
`,
    );
    const { spec: loaded } = await loadSpec(path);
    expect(loaded.artifacts).toEqual({ dir: join(dir, 'offline/files') });
    const plan = buildPlan({ spec: loaded, versions: loadVersions() });
    expect(plan.vars['artifacts_dir']).toBe(join(dir, 'offline/files'));
    const online = buildPlan({ spec: { ...loaded, artifacts: undefined }, versions: loadVersions() });
    expect('artifacts_dir' in online.vars).toBe(false);
  });
});
