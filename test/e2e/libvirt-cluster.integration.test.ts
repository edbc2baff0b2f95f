import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FileServer, serveFiles } from '../../fixtures/libvirt/file-server.js';
import { guestSsh, leftovers, removeTestStorage, testImage } from '../../fixtures/libvirt/lab.js';
import { ensureLibvirtd, type TestLibvirtd } from '../../fixtures/libvirt/libvirtd.js';
import { writeOfflineLibvirtSpec } from '../../fixtures/libvirt/offline-artifacts.js';
import { type TestCluster, uniqueTestCluster } from '../../fixtures/libvirt/test-cluster.js';
import type { Artifact } from '../../src/artifacts/index.js';
import { loadVersions } from '../../src/versions/versions.js';
import { kubemix, tempClusterDir } from './helpers.js';

// End to end on real guests: real libvirtd and QEMU (TCG here: /dev/kvm cannot run guests on
// these machines, and the preflight falls back by itself), a Debian 13 image a user would download
// (served by URL + SHA-256 from a loopback server), cloud-init, and prepare-linux for real on the
// guests: modprobe, sysctl, swapoff, and Debian's real containerd 1.7.24 + runc installed from the
// offline artifacts directory, running under systemd. What stands in: pkgs.k8s.io cannot be
// reached from here, so kubelet/kubeadm/kubectl/kubernetes-cni/cri-tools are tiny .debs made by
// the test (kubelet's with a systemd unit, so `systemctl enable kubelet` works), and the container
// images are minimal real OCI images that containerd imports. Then `kubemix down` must leave
// nothing of the cluster: checked by kubemix's leak check and again by the test itself.
// A fresh name, network and pool per run: other worktrees may run this test on the same libvirtd.
let cluster: TestCluster;
let controller: string;
let worker: string;
let libvirtd: TestLibvirtd;
let server: FileServer;
let spec: string;
let clusterDir: string;
let list: Artifact[];
let upResult: Awaited<ReturnType<typeof kubemix>>;

beforeAll(async () => {
  libvirtd = await ensureLibvirtd();
  cluster = await uniqueTestCluster('kmxe2e');
  [controller, worker] = [cluster.guest(0), cluster.guest(1)];
  const image = await testImage();
  clusterDir = join(await tempClusterDir(), 'cluster');
  server = await serveFiles({ '/images/debian-13-test.qcow2': image.path });
  ({ spec, list } = await writeOfflineLibvirtSpec(join(clusterDir, '..'), {
    ...cluster,
    image: { source: `${server.base}/images/debian-13-test.qcow2`, sha256: image.sha256 },
    linuxWorkers: 1,
  }));
  upResult = await kubemix(['up', spec, '--cluster-dir', clusterDir, '--stop-after', 'prepare-linux']);
}, 30 * 60_000);

afterAll(async () => {
  if (spec && cluster && (await leftovers(cluster)).length > 0)
    await kubemix(['down', spec, '--cluster-dir', clusterDir]);
  if (cluster) await removeTestStorage(cluster);
  if (clusterDir) await rm(join(clusterDir, '..'), { recursive: true, force: true });
  await server?.close();
  await libvirtd?.stop();
}, 10 * 60_000);

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

  it('runs Debian 13 containerd from the offline directory, active under systemd, on each guest', async () => {
    const pinned = loadVersions();
    for (const address of [controller, worker]) {
      const facts = await guestSsh(
        clusterDir,
        address,
        [
          'systemctl is-active containerd',
          "dpkg-query -W -f '${Version}\\n' containerd",
          'containerd --version',
          'cat /proc/sys/net/ipv4/ip_forward /proc/sys/net/bridge/bridge-nf-call-iptables',
          'swapon --noheadings | wc -l',
          'cloud-init status | head -n 1',
          'systemctl is-enabled kubelet',
          'ctr -n k8s.io images ls -q',
        ].join('; '),
      );
      expect(facts.exitCode, facts.stderr).toBe(0);
      const lines = facts.stdout.split('\n');
      expect(lines.slice(0, 2)).toEqual(['active', pinned['debian-13-containerd']]);
      expect(lines[2]).toContain('1.7.24');
      expect(lines.slice(3, 8)).toEqual(['1', '1', '0', 'status: done', 'enabled']);
      // containerd may name an image by its normalized reference (docker.io/library/...).
      const imported = lines.slice(8);
      for (const a of list.filter((x) => x.kind === 'image' && x.os === 'linux'))
        expect(
          imported.some((ref) => ref === a.image || ref.endsWith(`/${a.image}`)),
          a.image,
        ).toBe(true);
    }
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
