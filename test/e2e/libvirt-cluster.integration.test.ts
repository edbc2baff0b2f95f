import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { guestSsh, leftovers } from '../../fixtures/libvirt/lab.js';
import type { TestCluster } from '../../fixtures/libvirt/test-cluster.js';
import type { Artifact } from '../../src/artifacts/index.js';
import { kubemix } from './helpers.js';
import { OfflineLibvirtCluster } from './offline-libvirt-cluster.js';

// End to end on real guests: real libvirtd and QEMU (TCG here: /dev/kvm cannot run guests on
// these machines, and the preflight falls back by itself), a Debian 13 image a user would download
// (served by URL + SHA-256 from a loopback server), cloud-init, and prepare-linux for real on the
// guests at the oldest supported minor (fixtures/libvirt/offline-artifacts.ts: its spec lets
// containerd's 2.1 branch through, Debian's newest containerd being 2.1.9): modprobe, sysctl,
// swapoff, and containerd through kubemix's static-release path, because Debian 13's containerd
// 1.7.24 is below the minimum. The release is REAL containerd 2.1.9 and runc 1.3.6: the binaries of Debian
// forky's packages (pinned by SHA-256 from Debian's Packages index), repacked by the test into
// containerd's release layout (containerd-2.1.9-linux-amd64.tar.gz, runc.amd64, containerd.service)
// and pinned in the spec's `versions:` with their SHA-256; kubemix downloads them by URL from a
// loopback mirror into the artifacts directory, checks every digest, unpacks under /usr/local,
// installs runc and the unit, and checks `containerd --version`; the test then asserts containerd
// is active under systemd and runs a container through it and runc. What stands in: the tarball is
// not containerd's own build (github.com is unreachable here; Debian builds the same source tag);
// pkgs.k8s.io cannot be reached either, so kubelet/kubeadm/kubectl/kubernetes-cni/cri-tools are
// tiny .debs made by the test in a flat repository whose index kubemix reads (kubelet's with a
// systemd unit, so `systemctl enable kubelet` works),
// and the container images are minimal real OCI images that containerd imports. Then `kubemix
// down` must leave nothing of the cluster: checked by kubemix's leak check and again by the test.
// A fresh name, network and pool per run: other worktrees may run this test on the same libvirtd.
const lab = new OfflineLibvirtCluster('kmxe2e');
let cluster: TestCluster;
let controller: string;
let worker: string;
let spec: string;
let clusterDir: string;
let list: Artifact[];
let versions: Record<string, string>;
let upResult: Awaited<ReturnType<typeof kubemix>>;

beforeAll(async () => {
  await lab.start({ linuxWorkers: 1 });
  ({ spec, clusterDir, list, versions } = lab);
  cluster = lab.cluster!;
  [controller, worker] = [lab.guest(0), lab.guest(1)];
  upResult = await lab.run('up', '--stop-after', 'prepare-linux');
}, 30 * 60_000);

afterAll(() => lab.stop(), 10 * 60_000);

describe('libvirt end to end (real libvirtd, QEMU guests, cloud-init, prepare-linux)', () => {
  it('creates the network and the guests, waits for cloud-init, and prepares Linux for real', () => {
    expect(upResult.exitCode, `${upResult.stdout}\n${upResult.stderr}`).toBe(0);
    expect(upResult.stdout).toMatch(/KVM cannot run guests .*software emulation \(TCG/);
    for (const task of [
      'prepare-provider',
      'create-network',
      'create-hosts',
      'wait-for-hosts',
      'prepare-linux',
    ])
      expect(upResult.stdout).toContain(`DONE  ${task}`);
  });

  it("installs containerd's static release from the offline directory, active under systemd, on each guest", async () => {
    for (const address of [controller, worker]) {
      const facts = await guestSsh(
        clusterDir,
        address,
        [
          'systemctl is-active containerd',
          'systemctl show -P FragmentPath containerd',
          'command -v containerd',
          'containerd --version',
          'runc --version | head -n 1',
          'dpkg -s containerd >/dev/null 2>&1 && echo package-installed || echo no-package',
          'cat /proc/sys/net/ipv4/ip_forward /proc/sys/net/bridge/bridge-nf-call-iptables',
          'swapon --noheadings | wc -l',
          'cloud-init status | head -n 1',
          'systemctl is-enabled kubelet',
          'ctr -n k8s.io images ls -q',
        ].join('; '),
      );
      expect(facts.exitCode, facts.stderr).toBe(0);
      const lines = facts.stdout.split('\n');
      expect(lines.slice(0, 3)).toEqual([
        'active',
        '/usr/local/lib/systemd/system/containerd.service',
        '/usr/local/bin/containerd',
      ]);
      // Debian's builds report the version without a `v` and no revision (the release's own would
      // print `v2.1.9 <commit>`); kubemix's check reads X.Y.Z either way.
      expect(lines[3]?.trim()).toBe(
        `containerd github.com/containerd/containerd/v2 ${versions['containerd-linux']}+unknown`,
      );
      expect(lines[4]).toBe(`runc version ${versions['runc-linux']}+ds1`);
      // Debian 13's containerd package (1.7.24, below the minimum) is carried but not installed.
      expect(lines[5]).toBe('no-package');
      expect(lines.slice(6, 11)).toEqual(['1', '1', '0', 'status: done', 'enabled']);
      // containerd may name an image by its normalized reference (docker.io/library/...). kubeadm's
      // control-plane images (artifacts.yaml `role: control-plane`) are on the controller only.
      const imported = lines.slice(11);
      for (const a of list.filter((x) => x.kind === 'image' && x.os === 'linux'))
        expect(
          imported.some((ref) => ref === a.image || ref.endsWith(`/${a.image}`)),
          `${address}: ${a.image}`,
        ).toBe(address === controller || a.role === undefined);
    }
  });

  it('runs a container through the installed containerd, shim and runc', async () => {
    // A root filesystem of the guest's own echo and the libraries it needs (the test images hold
    // no program); ctr asks containerd, which starts containerd-shim-runc-v2, which runs runc.
    const run = await guestSsh(
      clusterDir,
      worker,
      [
        'set -e',
        'rootfs=$(mktemp -d /tmp/kmx-rootfs-XXXXXX)',
        'trap \'rm -rf "$rootfs"\' EXIT',
        'for f in /usr/bin/echo $(ldd /usr/bin/echo | grep -o "/[^ ]*"); do cp --parents -L "$f" "$rootfs"; done',
        'ctr -n kubemix-e2e run --rm --rootfs "$rootfs" kubemix-e2e-echo /usr/bin/echo hello-from-runc',
      ].join('\n'),
    );
    expect(run.exitCode, `${run.stdout}\n${run.stderr}`).toBe(0);
    expect(run.stdout.trim()).toBe('hello-from-runc');
  });

  it('gives every node its reserved address and a DNS name on the cluster network', async () => {
    const lookup = await guestSsh(
      clusterDir,
      worker,
      `getent hosts controller-01.${cluster.name}.kubemix.internal`,
    );
    expect(lookup.stdout.trim().split(/\s+/)[0]).toBe(controller);
    const hostname = await guestSsh(clusterDir, controller, 'hostname');
    expect(hostname.stdout.trim()).toBe('controller-01');
  });

  it('lists the recorded resources and that they exist (kubemix status)', async () => {
    const status = await kubemix(['status', spec, '--cluster-dir', clusterDir]);
    expect(status.exitCode, status.stderr).toBe(0);
    for (const line of [
      `network ${cluster.name}.hypervisor-01.network  recorded created  exists`,
      `domain ${cluster.name}.controller-01  recorded created  exists`,
      `domain ${cluster.name}.linux-01  recorded created  exists`,
      `volume ${cluster.name}.linux-01.seed.iso  recorded created  exists`,
    ])
      expect(status.stdout).toContain(line);
  });

  it('kubemix down leaves no domain, volume, network, bridge, dnsmasq, file or iptables rule of the cluster', async () => {
    const down = await kubemix(['down', spec, '--cluster-dir', clusterDir, '--purge-images']);
    expect(down.exitCode, `${down.stdout}\n${down.stderr}`).toBe(0);
    expect(down.stdout).toContain('DONE  check-leaks');
    expect(await leftovers(cluster)).toEqual([]);
    // The guests' console logs stay with the cluster directory for post-mortems.
    for (const node of ['controller-01', 'linux-01'])
      expect(await readFile(join(clusterDir, 'console', `${node}.log`), 'utf8')).toContain('cloud-init');
  });
});
