import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { execa } from 'execa';
import { pinnedDownloads } from '../../fixtures/windows-sim/cluster-commands-support.js';
import type { Artifact } from '../../src/artifacts/index.js';
import { loadVersions } from '../../src/versions/versions.js';
import { testTempDir } from '../helpers/temp.js';

/** A real (tiny) Debian package made with dpkg-deb: control fields only and one doc file. */
export async function buildDeb(
  path: string,
  pkg: {
    name: string;
    version: string;
    depends?: string[];
    /** More files by absolute path in the package (a systemd unit, a program), with their mode. */
    files?: Record<string, { content: string; mode?: number }>;
  },
): Promise<void> {
  const root = await testTempDir('deb');
  await mkdir(join(root, 'DEBIAN'));
  await mkdir(join(root, 'usr/share/doc', pkg.name), { recursive: true });
  await writeFile(join(root, 'usr/share/doc', pkg.name, 'README'), `kubemix test package ${pkg.name}\n`);
  for (const [file, { content, mode = 0o644 }] of Object.entries(pkg.files ?? {})) {
    await mkdir(join(root, dirname(file)), { recursive: true });
    await writeFile(join(root, file), content, { mode });
  }
  await writeFile(
    join(root, 'DEBIAN/control'),
    [
      `Package: ${pkg.name}`,
      `Version: ${pkg.version}`,
      'Architecture: amd64',
      'Maintainer: kubemix tests <tests@kubemix.invalid>',
      ...(pkg.depends?.length ? [`Depends: ${pkg.depends.join(', ')}`] : []),
      `Description: kubemix test stand-in for ${pkg.name}`,
      '',
    ].join('\n'),
  );
  await execa('dpkg-deb', ['--root-owner-group', '-Zgzip', '--build', root, path]);
}

/**
 * An image archive as `docker save` writes it (manifest.json with RepoTags), or as
 * `ctr images export` does (OCI index.json with the image name annotation). Made with tar.
 */
export async function buildImageArchive(
  path: string,
  ref: string,
  format: 'docker' | 'oci' = 'docker',
): Promise<void> {
  const root = await testTempDir('image');
  if (format === 'docker') {
    await writeFile(
      join(root, 'manifest.json'),
      JSON.stringify([{ Config: 'config.json', RepoTags: [ref], Layers: [] }]),
    );
    await writeFile(join(root, 'config.json'), '{"architecture":"amd64","os":"linux"}');
  } else {
    await writeFile(join(root, 'oci-layout'), '{"imageLayoutVersion":"1.0.0"}');
    await writeFile(
      join(root, 'index.json'),
      JSON.stringify({
        schemaVersion: 2,
        manifests: [
          {
            mediaType: 'application/vnd.oci.image.index.v1+json',
            digest: `sha256:${'1'.repeat(64)}`,
            size: 1,
            annotations: {
              'io.containerd.image.name': ref,
              'org.opencontainers.image.ref.name': ref.split(':').pop(),
            },
          },
        ],
      }),
    );
  }
  await execa('tar', ['-cf', path, '-C', root, '.']);
}

/** Debian package name and version of a .deb artifact, from its file name (name_version_arch.deb). */
export function debFields(artifact: Artifact): { name: string; version: string } {
  const [name, version] = artifact.file.replace(/\.deb$/, '').split('_');
  return { name: name!, version: version! };
}

/** What the lab's Linux packages depend on (as pkgs.k8s.io's do). */
export const DEB_DEPENDS: Record<string, string[]> = {
  kubelet: ['kubernetes-cni (>= 1.2.0)', 'iptables', 'libc6'],
  kubeadm: ['cri-tools (>= 1.28.0)', 'kubelet', 'kubectl'],
  containerd: ['runc (>= 0.1.0~)', 'libc6 (>= 2.34)'],
};

/**
 * Fills an artifacts directory the way a user would for the lab: tiny real .debs for the Linux
 * packages, image archives for every image, and marked stand-in bytes for the Windows files.
 * Returns the directory.
 */
export async function fillArtifactsDir(dir: string, list: readonly Artifact[]): Promise<string> {
  await mkdir(dir, { recursive: true });
  // The node scripts as the lab serves them online: marked with their pinned revision, which the
  // Windows simulator reads to know which revision's behaviour to model.
  const scripts = pinnedDownloads(loadVersions());
  for (const a of list) {
    const path = join(dir, a.file);
    if (a.kind === 'deb') {
      const { name, version } = debFields(a);
      await buildDeb(path, { name, version, depends: DEB_DEPENDS[name] ?? [] });
    } else if (a.kind === 'image')
      await buildImageArchive(path, a.image!, a.os === 'windows' ? 'oci' : 'docker');
    else if (a.url && scripts.has(a.url)) await writeFile(path, scripts.get(a.url)!);
    else await writeFile(path, `kubemix test stand-in for ${a.url}\r\n`);
  }
  return dir;
}
