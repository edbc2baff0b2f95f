import { tmpdir } from 'node:os';
import { basename } from 'node:path';
import { type HygieneSnapshot, type Leftover, runLeftovers, takeSnapshot } from './leftovers.js';
import type { ProcessInfo } from './marked-processes.js';
import { makeTempDirSync } from './temp-dir.js';

/** A test or benchmark run watched for leftovers (see {@link beginHygieneRun}). */
export interface HygieneRun {
  /** The temp directory the run started with, where the snapshot looked. */
  tmp: string;
  snapshot: HygieneSnapshot;
  /** `<tmp>/kmx-run-XXXXXX`: where the run's temp paths go. */
  runDir: string;
  /** The run's marker value: `KMX_TEST_RUN=<runId>` in every process it starts. */
  runId: string;
}

/**
 * Starts watching a run: records what of ours exists already, makes the run's directory and sets
 * `KMX_TEST_RUN_DIR` and `KMX_TEST_RUN` in this process's environment, so every process started
 * from now on carries the marker. Call before anything is started.
 */
export function beginHygieneRun(): HygieneRun {
  const tmp = tmpdir();
  const snapshot = takeSnapshot(tmp);
  const runDir = makeTempDirSync('run');
  const run = { tmp, snapshot, runDir, runId: basename(runDir) };
  process.env['KMX_TEST_RUN_DIR'] = runDir;
  process.env['KMX_TEST_RUN'] = run.runId;
  return run;
}

/** What the run left behind (see runLeftovers), cleaned up where it is surely the run's own. */
export function endHygieneRun(run: HygieneRun, isRunner?: (p: ProcessInfo) => boolean): Promise<Leftover[]> {
  return runLeftovers({ ...run, ...(isRunner ? { isRunner } : {}) });
}
