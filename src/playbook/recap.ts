import { EXIT } from '../errors/index.js';

/** Ansible's per-host counters. `ok` counts every successful task, changed ones included. */
export interface HostStats {
  ok: number;
  changed: number;
  unreachable: number;
  failed: number;
  skipped: number;
  /** Always 0: kubemix has no block/rescue. */
  rescued: number;
  /** Failures that ignore_errors let pass (counted in ok too, as Ansible does). */
  ignored: number;
}

/** A fresh counter set. */
export const emptyStats = (): HostStats => ({
  ok: 0,
  changed: 0,
  unreachable: 0,
  failed: 0,
  skipped: 0,
  rescued: 0,
  ignored: 0,
});

/**
 * The run's exit code from the counters, in kubemix's one table (src/errors/exit-codes.ts): a
 * failed or unreachable host is a failure (1). ansible-playbook tells them apart (2 and 4,
 * TaskQueueManager's RUN_FAILED_HOSTS / RUN_UNREACHABLE_HOSTS); the recap still does.
 */
export function exitCodeFor(stats: Record<string, HostStats>): number {
  return Object.values(stats).some((s) => s.unreachable > 0 || s.failed > 0) ? EXIT.failed : EXIT.ok;
}

/** What formatRecap needs: counters per host, in the order hosts appeared. */
export interface RecapInput {
  stats: Record<string, HostStats>;
}

/**
 * Ansible's PLAY RECAP block, without colour:
 * `host : ok=3    changed=1    unreachable=0    failed=0    skipped=0    rescued=0    ignored=0`.
 */
export function formatRecap(result: RecapInput): string {
  const title = 'PLAY RECAP ';
  const lines = [`${title}${'*'.repeat(Math.max(3, 79 - title.length))}`];
  for (const [host, s] of Object.entries(result.stats)) {
    const field = (name: string, n: number) => `${name}=${String(n).padEnd(4)}`;
    lines.push(
      `${host.padEnd(26)} : ${[
        field('ok', s.ok),
        field('changed', s.changed),
        field('unreachable', s.unreachable),
        field('failed', s.failed),
        field('skipped', s.skipped),
        field('rescued', s.rescued),
        field('ignored', s.ignored),
      ].join(' ')}`.trimEnd(),
    );
  }
  return `${lines.join('\n')}\n`;
}
