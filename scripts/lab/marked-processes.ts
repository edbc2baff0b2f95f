import { readdirSync, readFileSync } from 'node:fs';
import { pollUntil } from './poll.js';

/** A running process, as /proc shows it. */
export interface ProcessInfo {
  pid: number;
  ppid: number;
  /** /proc/PID/stat state letter (R, S, D, Z...). */
  state: string;
  /** The command line, arguments joined by spaces. */
  command: string;
}

function readProcess(pid: number): (ProcessInfo & { environ: string[] }) | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may hold spaces and parentheses: fields after it follow the last ')'.
    const after = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const command = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean).join(' ');
    const environ = readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0');
    return { pid, ppid: Number(after[1]), state: after[0] ?? '?', command, environ };
  } catch {
    // Gone while we looked, or not ours to read.
    return undefined;
  }
}

/**
 * Live processes whose environment, as they were started with, holds `NAME=value` (children
 * inherit it, so a marker set before a test spawns anything finds everything it started, daemons
 * included). Zombies are left out: they hold nothing but a PID, and PID 1 on these machines does
 * not always reap them (RESEARCH.md). The calling process is left out too.
 */
export function processesWithEnv(name: string, value: string): ProcessInfo[] {
  const wanted = `${name}=${value}`;
  const found: ProcessInfo[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const pid = Number(entry);
    if (pid === process.pid) continue;
    const info = readProcess(pid);
    if (!info || info.state === 'Z' || info.state === 'X') continue;
    if (info.environ.includes(wanted))
      found.push({ pid: info.pid, ppid: info.ppid, state: info.state, command: info.command });
  }
  return found;
}

/** The PIDs of this process's ancestors (npm, the shell...), which carry whatever markers they were given. */
export function ancestorPids(): Set<number> {
  const out = new Set<number>();
  let pid = process.ppid;
  while (pid > 1 && !out.has(pid)) {
    out.add(pid);
    pid = readProcess(pid)?.ppid ?? 1;
  }
  return out;
}

/**
 * Waits until `find()` returns nothing or `ms` have passed, and returns what is still there: a
 * process that was just signalled gets time to exit before it counts as left behind.
 */
export async function stillRunningAfter(find: () => ProcessInfo[], ms: number): Promise<ProcessInfo[]> {
  let found: ProcessInfo[] = [];
  await pollUntil(
    () => {
      found = find();
      return found.length === 0;
    },
    { timeoutMs: ms },
  );
  return found;
}

/** Sends SIGKILL to each PID (the caller found them by its own marker). */
export function killAll(processes: ProcessInfo[]): void {
  for (const { pid } of processes) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // Already gone.
    }
  }
}
