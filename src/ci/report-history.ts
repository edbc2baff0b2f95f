import { type FlakyTask, flakyTasks, type History } from './history.js';
import { badge, esc, formatDuration, table } from './html.js';
import type { CiSummary } from './summary-types.js';

/**
 * The trend over the kept runs (`--history`): pass/fail and duration per run, each task's duration
 * per run (a bar scaled to the task's slowest run), and the flaky tasks.
 */
export function renderHistory(history: History, current: CiSummary): string {
  const runs = history.runs;
  const parts = [`<section id="history"><h2>History (${runs.length} runs)</h2>`];
  if (history.unreadable.length > 0)
    parts.push(`<p class="note">Not readable, left out: ${history.unreadable.map(esc).join(', ')}</p>`);
  parts.push(runsTable(runs, current));
  parts.push(flakyList(flakyTasks(runs)));
  parts.push(taskTrend(runs));
  parts.push('</section>');
  return parts.join('\n');
}

const runLabel = (run: CiSummary) => run.startedAt.slice(0, 16).replace('T', ' ');
/** Column heading of a run in the per-task table: its number (oldest is 1) and start. */
const runHeading = (run: CiSummary, index: number) =>
  `#${index + 1} ${run.startedAt.slice(5, 16).replace('T', ' ')}`;

function runsTable(runs: CiSummary[], current: CiSummary): string {
  const longest = Math.max(1, ...runs.map((r) => r.durationMs));
  const rows = [...runs]
    .reverse()
    .map((run, reversed) => [
      `#${runs.length - reversed} ${esc(runLabel(run))}${run.startedAt === current.startedAt ? ' <em>(this run)</em>' : ''}`,
      badge(run.outcome),
      esc(run.spec),
      `<span class="nowrap"><span class="trend"><span style="width:${((100 * run.durationMs) / longest).toFixed(1)}%"></span></span> ${esc(formatDuration(run.durationMs))}</span>`,
      esc(run.message ?? ''),
    ]);
  return table(['run, started (UTC)', 'outcome', 'spec', 'duration', 'why'], rows, 'runs');
}

function flakyList(flaky: FlakyTask[]): string {
  if (flaky.length === 0) return '<p>No flaky tasks in these runs.</p>';
  const rows = flaky.map((t) => [esc(t.task), esc(t.failedRuns), esc(t.passedRuns), esc(t.retriedRuns)]);
  return `<h3>Flaky tasks</h3>\n${table(['task', 'failed in runs', 'passed in runs', 'passed after a retry'], rows, 'flaky')}`;
}

function taskTrend(runs: CiSummary[]): string {
  const names = [...new Set(runs.flatMap((r) => r.tasks.map((t) => t.name)))];
  const header = ['task', ...runs.map(runHeading)];
  const rows = names.map((name) => {
    const durations = runs.map((r) => r.tasks.find((t) => t.name === name));
    const slowest = Math.max(1, ...durations.map((t) => t?.durationMs ?? 0));
    return [
      esc(name),
      ...durations.map((task) => {
        if (!task || task.status === 'skipped') return '<span class="muted">-</span>';
        const width = ((100 * task.durationMs) / slowest).toFixed(1);
        return `<span class="nowrap"><span class="trend ${esc(task.status)}" title="${esc(task.status)}"><span style="width:${width}%"></span></span> ${esc(formatDuration(task.durationMs))}</span>`;
      }),
    ];
  });
  return `<h3>Duration per task</h3>\n<div class="scroll">${table(header, rows, 'trend-table')}</div>`;
}
