import { setTimeout as sleep } from 'node:timers/promises';
import { guestCpuSeconds } from './libvirt-boot.js';
import { withRealBenchCluster } from './real-cluster-bench.js';
import { median, spread } from './stats.js';

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

/**
 * Whether a highly available control plane can run on this machine at all (#23 item 3): the real
 * two-node cluster of the real-cluster test (real-cluster-bench.ts: controller 2 vCPUs, worker 1,
 * the release scripts/release/ builds, QEMU under TCG) is brought up by `kubemix up`, left alone,
 * and each guest's QEMU CPU time is read from /proc every 10 s for a minute. Three controllers
 * at rest need three times the controller's figure; `npm run bench -- real-idle` (named only: it
 * takes the machine for about ten minutes).
 */
export async function libvirtRealIdleBench(): Promise<RealIdleRun> {
  return withRealBenchCluster('kmxidle', 1, async (real) => {
    const { cluster, kubemix } = real;
    const result: RealIdleRun = {
      coresByGuest: {},
      medianCoresByGuest: {},
      spreadByGuest: {},
      leftovers: [],
    };
    const started = performance.now();
    const up = await kubemix('up', '--stop-after', 'join-linux-workers');
    if (up.exitCode !== 0) {
      result.failure = `kubemix up failed:\n${String(up.stdout).slice(-3000)}\n${String(up.stderr).slice(-1000)}`;
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
    const { failure, ...down } = await real.down();
    Object.assign(result, down);
    if (failure) result.failure = failure;
    return result;
  });
}
