import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import { serveFiles } from '../../fixtures/libvirt/file-server.js';
import { leftovers, removeTestStorage, testImage } from '../../fixtures/libvirt/lab.js';
import { ensureLibvirtd } from '../../fixtures/libvirt/libvirtd.js';
import { writeOfflineLibvirtSpec } from '../../fixtures/libvirt/offline-artifacts.js';
import { type TestCluster, uniqueTestCluster } from '../../fixtures/libvirt/test-cluster.js';
import { builtRelease } from '../../fixtures/release/built-release.js';
import { kubemixCli } from '../lab/kubemix-cli.js';
import { makeTempDir } from '../lab/temp-dir.js';

const cli = kubemixCli();

/** A real cluster's name and network, where its state goes, and how to run kubemix on its spec. */
export interface RealBenchCluster {
  cluster: TestCluster;
  clusterDir: string;
  /** `kubemix <command> <spec> --cluster-dir <dir> <args>`, never throwing on its exit code. */
  kubemix(command: string, ...args: string[]): ReturnType<typeof execa>;
  /** `kubemix down`, timed, and what libvirt and the storage still hold after it. */
  down(): Promise<{ downMs: number; leftovers: string[]; failure?: string }>;
}

/**
 * The real clusters of the named-only bench parts (real-ha, real-idle): `controllers` controllers
 * of 2 vCPUs and 3 GiB (kubeadm's preflight asks a control plane for 2 CPUs and 1700 MB) and one
 * Linux worker of 1 vCPU and 2 GiB, as the real-cluster test sizes them, offline from the release
 * scripts/release/ builds, on a fresh libvirt network and pool. `body` brings it up and measures;
 * whatever it left running is taken down after it, and the storage and servers removed.
 */
export async function withRealBenchCluster<T>(
  stem: string,
  controllers: number,
  body: (real: RealBenchCluster) => Promise<T>,
): Promise<T> {
  const release = builtRelease();
  const libvirtd = await ensureLibvirtd();
  const cluster = await uniqueTestCluster(stem);
  const image = await testImage();
  const server = await serveFiles({ '/debian-13-test.qcow2': image.path });
  const work = await makeTempDir(`bench-${stem}`);
  const clusterDir = join(work, 'cluster');
  let spec: string | undefined;
  try {
    ({ spec } = await writeOfflineLibvirtSpec(
      work,
      {
        ...cluster,
        image: { source: `${server.base}/debian-13-test.qcow2`, sha256: image.sha256 },
        linuxWorkers: 1,
        vcpus: 1,
        memoryGiB: 2,
        controller: { count: controllers, vcpus: 2, memoryGiB: 3 },
      },
      release,
    ));
    const specPath = spec;
    const kubemix = (command: string, ...args: string[]) =>
      execa('node', [cli, command, specPath, '--cluster-dir', clusterDir, ...args], {
        reject: false,
        env: { CI: 'true' },
      });
    const down = async () => {
      const started = performance.now();
      const result = await kubemix('down');
      const downMs = performance.now() - started;
      const left = await leftovers(cluster);
      return result.exitCode === 0
        ? { downMs, leftovers: left }
        : { downMs, leftovers: left, failure: `kubemix down failed:\n${String(result.stdout).slice(-2000)}` };
    };
    return await body({ cluster, clusterDir, kubemix, down });
  } finally {
    if (spec && (await leftovers(cluster)).length > 0)
      await execa('node', [cli, 'down', spec, '--cluster-dir', clusterDir], {
        reject: false,
        env: { CI: 'true' },
      });
    await rm(work, { recursive: true, force: true });
    await removeTestStorage(cluster);
    await server.close();
    await libvirtd.stop();
  }
}
