import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { execa } from 'execa';
import { serveFiles } from '../../fixtures/libvirt/file-server.js';
import { leftovers, removeTestStorage, testImage } from '../../fixtures/libvirt/lab.js';
import { ensureLibvirtd } from '../../fixtures/libvirt/libvirtd.js';
import { writeOfflineLibvirtSpec } from '../../fixtures/libvirt/offline-artifacts.js';
import { uniqueTestCluster } from '../../fixtures/libvirt/test-cluster.js';
import { builtRelease } from '../../fixtures/release/built-release.js';
import { kubemixCli } from '../lab/kubemix-cli.js';
import { makeTempDir } from '../lab/temp-dir.js';
import { guestCpuSeconds } from './libvirt-boot.js';
import { median, spread } from './stats.js';

const cli = kubemixCli();
/** After `up`: let the last pods settle, then read every guest's QEMU CPU this often, this many times. */
const SETTLE_MS = 30_000;
const INTERVAL_MS = 10_000;
const INTERVALS = 6;

/** What each guest of a real cluster at rest costs the host, in host cores. */
export interface RealIdleRun {
  upMs?: number;
  /** Node -> host cores its QEMU used in each interval (CPU seconds over wall seconds). */
  coresByGuest: Record<string, number[]>;
  medianCoresByGuest: Record<string, number>;
  spreadByGuest: Record<string, [number, number]>;
  downMs?: number;
  leftovers: string[];
  failure?: string;
}

const run = (spec: string, clusterDir: string, ...args: string[]) =>
  execa('node', [cli, args[0]!, spec, '--cluster-dir', clusterDir, ...args.slice(1)], {
    reject: false,
    env: { CI: 'true' },
  });

/**
 * Whether a highly available control plane can run on this machine at all (#23 item 3): the real
 * two-node cluster of the real-cluster test (controller 2 vCPUs / 3 GiB, worker 1 vCPU / 2 GiB,
 * the release scripts/release/ builds, QEMU under TCG) is brought up by `kubemix up`, left alone,
 * and each guest's QEMU CPU time is read from /proc every 10 s for a minute. Three controllers
 * at rest need three times the controller's figure; `npm run bench -- real-idle` (named only: it
 * takes the machine for about ten minutes).
 */
export async function libvirtRealIdleBench(): Promise<RealIdleRun> {
  const release = builtRelease();
  const libvirtd = await ensureLibvirtd();
  const cluster = await uniqueTestCluster('kmxidle');
  const image = await testImage();
  const server = await serveFiles({ '/debian-13-test.qcow2': image.path });
  const work = await makeTempDir('bench-real-idle');
  const clusterDir = join(work, 'cluster');
  const result: RealIdleRun = { coresByGuest: {}, medianCoresByGuest: {}, spreadByGuest: {}, leftovers: [] };
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
        controller: { vcpus: 2, memoryGiB: 3 },
      },
      release,
    ));
    let started = performance.now();
    const up = await run(spec, clusterDir, 'up', '--stop-after', 'join-linux-workers');
    if (up.exitCode !== 0) {
      result.failure = `kubemix up failed:\n${up.stdout.slice(-3000)}\n${up.stderr.slice(-1000)}`;
      return result;
    }
    result.upMs = performance.now() - started;
    await sleep(SETTLE_MS);
    let before = await guestCpuSeconds(cluster.name);
    let at = performance.now();
    for (let i = 0; i < INTERVALS; i++) {
      await sleep(INTERVAL_MS);
      const now = await guestCpuSeconds(cluster.name);
      const seconds = (performance.now() - at) / 1000;
      for (const [guest, cpu] of Object.entries(now)) {
        const cores = result.coresByGuest[guest] ?? [];
        cores.push((cpu - (before[guest] ?? cpu)) / seconds);
        result.coresByGuest[guest] = cores;
      }
      before = now;
      at = performance.now();
    }
    for (const [guest, cores] of Object.entries(result.coresByGuest)) {
      result.medianCoresByGuest[guest] = median(cores);
      result.spreadByGuest[guest] = spread(cores);
    }
    started = performance.now();
    const down = await run(spec, clusterDir, 'down');
    result.downMs = performance.now() - started;
    if (down.exitCode !== 0) result.failure = `kubemix down failed:\n${down.stdout.slice(-2000)}`;
    result.leftovers = await leftovers(cluster);
    return result;
  } finally {
    if (spec && (await leftovers(cluster)).length > 0) await run(spec, clusterDir, 'down');
    await rm(work, { recursive: true, force: true });
    await removeTestStorage(cluster);
    await server.close();
    await libvirtd.stop();
  }
}
