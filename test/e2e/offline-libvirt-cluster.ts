import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { type FileServer, serveFiles } from '../../fixtures/libvirt/file-server.js';
import { type LibvirtTestSpec, leftovers, removeTestStorage, testImage } from '../../fixtures/libvirt/lab.js';
import { ensureLibvirtd, type TestLibvirtd } from '../../fixtures/libvirt/libvirtd.js';
import { writeOfflineLibvirtSpec } from '../../fixtures/libvirt/offline-artifacts.js';
import { type TestCluster, uniqueTestCluster } from '../../fixtures/libvirt/test-cluster.js';
import type { BuiltRelease } from '../../fixtures/release/built-release.js';
import type { Artifact } from '../../src/artifacts/index.js';
import { kubemix, settleKubemixRuns, tempClusterDir } from './helpers.js';

/** What a test may ask of the guests besides the cluster's name, network and storage. */
export type OfflineGuests = Omit<
  LibvirtTestSpec,
  'name' | 'cidr' | 'dataDir' | 'pool' | 'image' | 'artifactsDir' | 'versions' | 'kubernetesVersion'
>;

/**
 * The guests of a real cluster (the real release on them). kubeadm's preflight asks a control
 * plane for 2 CPUs and 1700 MB. The worker has 1 vCPU: the machine's 2 cores emulate both guests,
 * and a worker with 2 vCPUs took as much of them as the controller, whose API server then
 * restarted (liveness) while the worker waited to join.
 */
export const REAL_CLUSTER_GUESTS: OfflineGuests = {
  linuxWorkers: 1,
  vcpus: 1,
  memoryGiB: 2,
  controller: { vcpus: 2, memoryGiB: 3 },
};

/**
 * A libvirt cluster of the test image on this machine's libvirtd, built offline: a fresh name,
 * network and pool per run (other worktrees may use the same libvirtd), the test image served by
 * URL + SHA-256 from a loopback server, and the artifacts directory of writeOfflineLibvirtSpec
 * (with a built release: the real programs). `stop` works from any point `start` reached, so a
 * file's afterAll calls it whatever happened: it waits for kubemix runs a timed-out test left,
 * runs `down` while anything of the cluster is left, and removes the test's storage and files.
 */
export class OfflineLibvirtCluster {
  cluster?: TestCluster;
  spec = '';
  clusterDir = '';
  list: Artifact[] = [];
  versions: Record<string, string> = {};
  private libvirtd?: TestLibvirtd;
  private server?: FileServer;

  constructor(private readonly stem: string) {}

  /** The first guest's address (the controller). */
  get controller(): string {
    return this.cluster!.guest(0);
  }

  /** The address of guest `index` (0: the controller, then the Linux workers). */
  guest(index: number): string {
    return this.cluster!.guest(index);
  }

  async start(guests: OfflineGuests, release?: BuiltRelease): Promise<this> {
    this.libvirtd = await ensureLibvirtd();
    this.cluster = await uniqueTestCluster(this.stem);
    const image = await testImage();
    this.clusterDir = join(await tempClusterDir(), 'cluster');
    this.server = await serveFiles({ '/images/debian-13-test.qcow2': image.path });
    ({
      spec: this.spec,
      list: this.list,
      versions: this.versions,
    } = await writeOfflineLibvirtSpec(
      join(this.clusterDir, '..'),
      {
        ...this.cluster,
        image: { source: `${this.server.base}/images/debian-13-test.qcow2`, sha256: image.sha256 },
        ...guests,
      },
      release,
    ));
    return this;
  }

  /** `kubemix <command> <spec> --cluster-dir <dir> ...rest`. */
  run(command: string, ...rest: string[]) {
    return kubemix([command, this.spec, '--cluster-dir', this.clusterDir, ...rest]);
  }

  /** What libvirt and the test storage still hold of the cluster. */
  leftovers(): Promise<string[]> {
    return leftovers(this.cluster!);
  }

  async stop(): Promise<void> {
    // A beforeAll that timed out leaves its `up` running, holding the lock `down` needs.
    await settleKubemixRuns();
    if (this.spec && this.cluster && (await leftovers(this.cluster)).length > 0) await this.run('down');
    if (this.cluster) await removeTestStorage(this.cluster);
    if (this.clusterDir) await rm(join(this.clusterDir, '..'), { recursive: true, force: true });
    await this.server?.close();
    await this.libvirtd?.stop();
  }
}
