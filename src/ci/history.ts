import { readdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { ensurePrivateDir, writePrivateFile } from '../fs/private-files.js';
import { type CiSummary, SUMMARY_FORMAT } from './summary-types.js';

/** How many summaries `--history` keeps unless told otherwise. */
export const DEFAULT_HISTORY_KEEP = 30;

// <UTC start, sortable>-<cluster>.json: kubemix only ever prunes files of this shape.
const HISTORY_FILE = /^\d{8}T\d{6}(?:\.\d{3})?Z-[A-Za-z0-9._-]+\.json$/;

/** The file name of a summary in a history directory: sorts by start time. */
export function historyFileName(summary: Pick<CiSummary, 'startedAt' | 'cluster'>): string {
  const stamp = summary.startedAt.replace(/[-:]/g, '');
  return `${stamp}-${summary.cluster.replace(/[^A-Za-z0-9._-]/g, '_')}.json`;
}

/** What reading a history directory found: the summaries, oldest first, and what was skipped. */
export interface History {
  runs: CiSummary[];
  /** Files of the history's shape that are not readable summaries (named, not fatal). */
  unreadable: string[];
}

/**
 * Adds this run's summary to `dir` (created 0700 when missing), removes the oldest summaries
 * beyond `keep`, and returns the ones left (this run last). Other files are left alone.
 */
export async function recordHistory(dir: string, summary: CiSummary, keep: number): Promise<History> {
  await ensurePrivateDir(dir);
  await writePrivateFile(join(dir, historyFileName(summary)), `${JSON.stringify(summary, null, 2)}\n`);
  const names = (await readdir(dir)).filter((name) => HISTORY_FILE.test(name)).sort();
  const stale = names.slice(0, Math.max(0, names.length - keep));
  await Promise.all(stale.map((name) => rm(join(dir, name), { force: true })));
  return readHistory(dir, names.slice(stale.length));
}

async function readHistory(dir: string, names: string[]): Promise<History> {
  const runs: CiSummary[] = [];
  const unreadable: string[] = [];
  for (const name of names) {
    try {
      const data = JSON.parse(await readFile(join(dir, name), 'utf8')) as Partial<CiSummary>;
      if (data.format !== SUMMARY_FORMAT || !Array.isArray(data.tasks)) throw new Error('not a summary');
      runs.push(data as CiSummary);
    } catch {
      unreadable.push(name);
    }
  }
  runs.sort((a, b) => a.startedAt.localeCompare(b.startedAt));
  return { runs, unreadable };
}

/** Why a task counts as flaky. */
export interface FlakyTask {
  task: string;
  /** Runs (of those kept) in which it failed / passed / passed only after a retry. */
  failedRuns: number;
  passedRuns: number;
  retriedRuns: number;
}

/**
 * Tasks that are flaky over these runs: failed in some and passed in others, or passed only after
 * a step failed and was retried. Tasks that did not run (skipped) count for neither.
 */
export function flakyTasks(runs: readonly CiSummary[]): FlakyTask[] {
  const byTask = new Map<string, FlakyTask>();
  for (const run of runs) {
    for (const task of run.tasks) {
      if (task.status === 'skipped') continue;
      const entry = byTask.get(task.name) ?? {
        task: task.name,
        failedRuns: 0,
        passedRuns: 0,
        retriedRuns: 0,
      };
      if (task.status === 'failed') entry.failedRuns += 1;
      if (task.status === 'passed') entry.passedRuns += 1;
      if (task.status === 'passed' && task.retried) entry.retriedRuns += 1;
      byTask.set(task.name, entry);
    }
  }
  return [...byTask.values()].filter((t) => (t.failedRuns > 0 && t.passedRuns > 0) || t.retriedRuns > 0);
}
