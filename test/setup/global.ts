import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, sep } from 'node:path';
import {
  formatLeftovers,
  type HygieneSnapshot,
  runLeftovers,
  takeSnapshot,
} from '../../scripts/lab/leftovers.js';
import type { ProcessInfo } from '../../scripts/lab/marked-processes.js';
import { makeTempDirSync } from '../../scripts/lab/temp-dir.js';

/**
 * The end-of-suite leftover check (vitest `globalSetup`). Setup records what of ours exists
 * (temp entries with our prefixes, `kmx*` namespaces and links, lab claims) and makes the run's
 * directory, which every test file's TMPDIR lies in (test/setup/per-file.ts); processes inherit
 * `KMX_TEST_RUN`. Teardown fails the run (exit code 1) naming whatever is left, with the test
 * file that made it where known.
 *
 * Exact (and cleaned up): the run's directory, labs under it, processes carrying this run's
 * marker. Compared with the snapshot, so only reported: new `kmx-*`/`kubemix-*` entries directly
 * in the temp directory (code that ignores TMPDIR), new namespaces, links and lab claims. In CI one
 * run happens at a time; on a shared machine another run may add those meanwhile (its own labs
 * live under its own run directory and are not counted).
 */
interface RunState {
  users: number;
  tmp: string;
  snapshot: HygieneSnapshot;
  runDir: string;
  runId: string;
}

// vitest calls a root globalSetup once per project as well as for the root: one check for all.
const KEY = Symbol.for('kubemix.test-hygiene');
const holder = globalThis as Record<symbol, RunState | undefined>;

// The runner's own processes carry the marker too: its workers and its build service (esbuild).
const isRunner = (p: ProcessInfo) => p.ppid === process.pid && p.command.includes(`${sep}node_modules${sep}`);

export default function setup(): () => Promise<void> {
  let run = holder[KEY];
  if (!run) {
    const tmp = tmpdir();
    const snapshot = takeSnapshot(tmp);
    const runDir = makeTempDirSync('run');
    run = { users: 0, tmp, snapshot, runDir, runId: basename(runDir) };
    holder[KEY] = run;
    process.env['KMX_TEST_RUN_DIR'] = runDir;
    process.env['KMX_TEST_RUN'] = run.runId;
  }
  run.users += 1;
  const state = run;
  return async () => {
    state.users -= 1;
    if (state.users > 0) return;
    holder[KEY] = undefined;
    const found = await runLeftovers({ ...state, isRunner });
    if (found.length === 0) return;
    const report = `leftover check: the test run left things behind\n${formatLeftovers(found)}`;
    console.error(`\n${report}\n`);
    const reportFile = process.env['KMX_LEFTOVER_REPORT'];
    if (reportFile) writeFileSync(reportFile, `${report}\n`);
    process.exitCode = 1;
  };
}
