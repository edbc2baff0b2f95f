import { chmod, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect } from 'vitest';
import type { HostState } from '../../fixtures/lab/standins/runtime.js';
import { loadVersions } from '../../src/versions/versions.js';
import { type FakeHost, fakeHost } from './helpers.js';
import { kubeadmYaml, V1BETA4 } from './kubeadm-config.js';

// Fake lab hosts (helpers.ts fakeHost) prepared for the pinned Kubernetes release, and kubeadm
// init on them: the lab models the pinned kubeadm's wait-control-plane, which the older fake
// host's kubeadm (1.31.2) predates.

/** The pinned Kubernetes version (playbooks/versions.yaml). */
export const VERSION = loadVersions()['kubernetes']!;
const PACKAGE = `${VERSION}-1.1`;
const CONTAINERD = loadVersions()['containerd-linux']!;

export interface HostSetup {
  /** `release`: containerd's static release (the pinned version) in /usr/local/bin; else Debian's package version. */
  containerd?: 'release' | string;
  offline?: boolean;
  images?: string[];
  /** /etc/containerd/config.toml; undefined: none. */
  config?: string;
}

/** A host prepared for VERSION: kubeadm/kubelet/kubectl packages, containerd as asked, running. */
export async function host(
  stateDir: string,
  name: string,
  address: string,
  setup: HostSetup = {},
): Promise<FakeHost> {
  const h = await fakeHost(stateDir, name, address);
  const file = join(h.root, 'var/lib/kubemix-lab/host.json');
  const state = JSON.parse(await readFile(file, 'utf8')) as HostState;
  const containerd = setup.containerd ?? 'release';
  Object.assign(state.packages, { kubeadm: PACKAGE, kubelet: PACKAGE, kubectl: PACKAGE });
  if (containerd === 'release') {
    delete state.packages['containerd'];
    await mkdir(join(h.root, 'usr/local/bin'), { recursive: true });
    for (const program of ['containerd', 'ctr']) {
      const path = join(h.root, 'usr/local/bin', program);
      await writeFile(
        path,
        `#!/bin/sh\necho "containerd github.com/containerd/containerd/v2 v${CONTAINERD} 0000000000000000000000000000000000000000"\n`,
      );
      await chmod(path, 0o755);
    }
    // The release's unit, where prepare-linux installs it (systemctl finds it there).
    await mkdir(join(h.root, 'usr/local/lib/systemd/system'), { recursive: true });
    await writeFile(
      join(h.root, 'usr/local/lib/systemd/system/containerd.service'),
      '[Service]\nExecStart=/usr/local/bin/containerd\n',
    );
  } else state.packages['containerd'] = containerd;
  state.images = (setup.images ?? [])
    .map((ref) => (ref.includes('/') ? ref : `docker.io/library/${ref}`))
    .sort();
  await writeFile(file, JSON.stringify(state));
  if (setup.offline) await writeFile(join(h.root, 'var/lib/kubemix-lab/offline'), '');
  await rm(join(h.root, 'etc/containerd/config.toml'), { force: true });
  if (setup.config !== undefined) await writeFile(join(h.root, 'etc/containerd/config.toml'), setup.config);
  // containerd reads its configuration when it starts.
  const restart = await h.run('systemctl', ['restart', 'containerd']);
  expect(restart.stderr).toBe('');
  return h;
}

export const hostState = async (h: FakeHost) =>
  JSON.parse(await readFile(join(h.root, 'var/lib/kubemix-lab/host.json'), 'utf8')) as HostState;

/** `kubeadm init` on `h` for VERSION, advertising `address`. */
export async function init(h: FakeHost, name: string, address: string) {
  const config = join(h.root, 'kubeadm.yaml');
  await writeFile(
    config,
    kubeadmYaml(
      {
        apiVersion: V1BETA4,
        kind: 'InitConfiguration',
        nodeRegistration: { name },
        localAPIEndpoint: { advertiseAddress: address },
      },
      {
        apiVersion: V1BETA4,
        kind: 'ClusterConfiguration',
        kubernetesVersion: `v${VERSION}`,
        controlPlaneEndpoint: `${address}:6443`,
        networking: { podSubnet: '10.244.0.0/16', serviceSubnet: '10.96.0.0/12' },
      },
    ),
  );
  return h.run('kubeadm', ['init', '--config', config, '--upload-certs']);
}
