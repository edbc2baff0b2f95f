import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import { serveFiles } from '../../fixtures/libvirt/file-server.js';
import { leftovers, removeTestStorage, testImage } from '../../fixtures/libvirt/lab.js';
import { ensureLibvirtd } from '../../fixtures/libvirt/libvirtd.js';
import { writeOfflineLibvirtSpec } from '../../fixtures/libvirt/offline-artifacts.js';
import { kubemixCli } from '../lab/kubemix-cli.js';
import { makeTempDir } from '../lab/temp-dir.js';
import { type HostPipeline, hostPipeline } from './host-pipeline.js';
import { events } from './libvirt-boot.js';

const cli = kubemixCli();
const cluster = {
  name: 'kmxbenchpl',
  cidr: '10.213.55.0/24',
  dataDir: '/var/lib/kubemix-bench-pl',
  pool: 'kubemix-bench-pl',
};

/** `kubemix up --stop-after prepare-linux` of the e2e spec, and how long each task took. */
export interface PrepareLinuxRun {
  wallMs: number;
  /** Task durations from the run's event log, in the order they ended. */
  tasksMs: Record<string, number>;
  /** What the barrier between wait-for-hosts and prepare-linux cost (host-pipeline.ts). */
  pipeline?: HostPipeline;
}

/**
 * The end-to-end spec of the libvirt tests (1 controller + 1 Linux worker, 1 vCPU / 1 GiB each,
 * Debian 13 test image by URL, Kubernetes 1.35.4, containerd's static release of real binaries
 * from the offline artifacts directory) brought up to
 * prepare-linux on real guests, then torn down. The base image is downloaded into a fresh pool
 * (the first cluster on the hypervisor), so the figure includes the download.
 */
export async function libvirtPrepareLinuxBench(): Promise<PrepareLinuxRun> {
  const libvirtd = await ensureLibvirtd();
  const image = await testImage();
  const server = await serveFiles({ '/debian-13-test.qcow2': image.path });
  const work = await makeTempDir('bench-prepare-linux');
  const clusterDir = join(work, 'cluster');
  let spec: string | undefined;
  try {
    ({ spec } = await writeOfflineLibvirtSpec(work, {
      ...cluster,
      image: { source: `${server.base}/debian-13-test.qcow2`, sha256: image.sha256 },
      linuxWorkers: 1,
    }));
    const started = performance.now();
    const up = await execa(
      'node',
      [cli, 'up', spec, '--cluster-dir', clusterDir, '--stop-after', 'prepare-linux'],
      {
        reject: false,
        env: { CI: 'true' },
      },
    );
    const wallMs = performance.now() - started;
    if (up.exitCode !== 0) throw new Error(`kubemix up failed:\n${up.stdout.slice(-2000)}\n${up.stderr}`);
    const tasksMs: Record<string, number> = {};
    const upEvents = await events(clusterDir);
    for (const e of upEvents) if (e.type === 'task-end') tasksMs[e.task] = e.durationMs;
    const pipeline = hostPipeline(upEvents, 'wait-for-hosts', 'prepare-linux');
    return { wallMs, tasksMs, ...(pipeline ? { pipeline } : {}) };
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
