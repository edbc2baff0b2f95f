import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';

/** USER_HZ: /proc/stat counts in 1/100 s on Linux (sysconf(_SC_CLK_TCK), 100 on every mainstream kernel). */
const TICKS_PER_SECOND = 100;

/**
 * CPU time every core of the machine has spent busy so far (user, nice, system, irq and softirq
 * from /proc/stat's first line; idle and iowait left out), in ms. The difference of two readings
 * is what everything on the machine used between them.
 */
export function machineBusyMs(): number {
  const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
  const [user = 0, nice = 0, system = 0, , , irq = 0, softirq = 0] = fields;
  return ((user + nice + system + irq + softirq) * 1000) / TICKS_PER_SECOND;
}

/** Where a command's CPU went: its own, and everything else's on the machine meanwhile. */
export interface CpuSplit {
  /** CPU of the measured command (user + system). */
  commandMs: number;
  /** CPU of everything else while it ran (for a lab run: the hosts' sshd, shells and commands). */
  othersMs: number;
  cores: number;
  /** The least wall time the others' CPU alone needs on this machine's cores. */
  othersFloorMs: number;
}

export function cpuSplit(busyBeforeMs: number, busyAfterMs: number, commandMs: number): CpuSplit {
  const cores = availableParallelism();
  const othersMs = Math.max(0, busyAfterMs - busyBeforeMs - commandMs);
  return { commandMs, othersMs, cores, othersFloorMs: othersMs / cores };
}
