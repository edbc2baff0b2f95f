import { writeFileSync } from 'node:fs';
import { sep } from 'node:path';
import { beginHygieneRun, endHygieneRun, type HygieneRun } from '../../scripts/lab/hygiene-run.js';
import { formatLeftovers } from '../../scripts/lab/leftovers.js';
import type { ProcessInfo } from '../../scripts/lab/marked-processes.js';

/**
 * The end-of-suite leftover check (vitest `globalSetup`). Setup records what of ours exists
 * (temp entries with our prefixes, `kmx*` namespaces and links, lab claims) and makes the run's
 * directory, which every test file's TMPDIR lies in (test/setup/per-file.ts); processes inherit
 * `KMX_TEST_RUN`. Teardown fails the run (exit code 1) naming whatever is left, with the test
 * file that made it where known.
 *
 * Exact (and cleaned up): the run's directory, labs under it, processes carrying this run's
 * marker. Compared with the snapshot, so only reported: new `kmx-*`/`kubemix-*` entries directly
 * in the temp directory (code that ignores TMPDIR), new namespaces, links and lab claims (labs
 * living in another run's directory are left out). In CI one run happens at a time; on a shared
 * machine a run without this setup (an older checkout) may add such things meanwhile.
 */
interface Holder {
  run: HygieneRun;
  users: number;
}

// vitest calls a root globalSetup once per project as well as for the root: one check for all.
const KEY = Symbol.for('kubemix.test-hygiene');
const slot = globalThis as Record<symbol, Holder | undefined>;

// The runner's own processes carry the marker too: its workers and its build service (esbuild).
const isRunner = (p: ProcessInfo) => p.ppid === process.pid && p.command.includes(`${sep}node_modules${sep}`);

export default function setup(): () => Promise<void> {
  const holder = slot[KEY] ?? { run: beginHygieneRun(), users: 0 };
  slot[KEY] = holder;
  holder.users += 1;
  return async () => {
    holder.users -= 1;
    if (holder.users > 0) return;
    slot[KEY] = undefined;
    const found = await endHygieneRun(holder.run, isRunner);
    if (found.length === 0) return;
    const report = `leftover check: the test run left things behind\n${formatLeftovers(found)}`;
    console.error(`\n${report}\n`);
    const reportFile = process.env['KMX_LEFTOVER_REPORT'];
    if (reportFile) writeFileSync(reportFile, `${report}\n`);
    process.exitCode = 1;
  };
}
