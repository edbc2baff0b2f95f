import { esc, formatDuration } from './html.js';
import type { CiSummary, HostResult, Phase, TaskResult } from './summary-types.js';

const WIDTH = 1000;
const LABEL = 150;
const LANE = 22;
const LANE_GAP = 4;
const TOP = 46;
/** Waits shorter than this share of the run are not drawn (they would be a hairline). */
const MIN_WAIT_SHARE = 0.003;

const PHASE_COLOURS: Record<Phase, string> = {
  provision: '#d8e2f0',
  build: '#e3ecd9',
  verify: '#f3e6cc',
  teardown: '#ead9ec',
};

interface Bar {
  task: TaskResult;
  host: HostResult;
  start: number;
  end: number;
  lane: number;
}

/**
 * The run as a Gantt chart (inline SVG, no script): one row per host, one bar per task on that
 * host; hatched bars are waits (the task was ready, its host had not started it); bars of the
 * observed critical path are outlined; phases are bands along the top. Every bar carries
 * `data-task` / `data-host`, and a tooltip with its times.
 */
export function renderTimeline(summary: CiSummary): string {
  const span = Math.max(1, summary.durationMs);
  const x = (ms: number) => LABEL + ((WIDTH - LABEL - 10) * Math.max(0, ms)) / span;
  const rows = hostRows(summary);
  let y = TOP;
  const parts: string[] = [];
  for (const [host, bars] of rows) {
    const lanes = Math.max(1, ...bars.map((b) => b.lane + 1));
    const height = lanes * LANE + (lanes - 1) * LANE_GAP;
    parts.push(`<g class="host-row" data-host="${esc(host)}">`);
    parts.push(`<rect class="row-bg" x="0" y="${y - 3}" width="${WIDTH}" height="${height + 6}"/>`);
    parts.push(`<text class="host-label" x="8" y="${y + height / 2 + 4}">${esc(host)}</text>`);
    for (const bar of bars) parts.push(renderBar(bar, y + bar.lane * (LANE + LANE_GAP), x, span));
    parts.push('</g>');
    y += height + 12;
  }
  const height = y + 8;
  return [
    `<svg class="timeline" viewBox="0 0 ${WIDTH} ${height}" width="100%" role="img" aria-label="Timeline of every task on every host">`,
    '<defs><pattern id="wait-hatch" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)">',
    '<rect width="6" height="6" fill="#f4f4f4"/><line x1="0" y1="0" x2="0" y2="6" stroke="#a8a8a8" stroke-width="2"/></pattern></defs>',
    phaseBands(summary, x, height),
    axis(span, x, height),
    ...parts,
    '</svg>',
  ].join('\n');
}

/** Bars per host in the order hosts first worked; overlapping bars of one host get their own lanes. */
function hostRows(summary: CiSummary): Map<string, Bar[]> {
  const rows = new Map<string, Bar[]>();
  const all: Bar[] = [];
  for (const task of summary.tasks) {
    for (const host of task.hosts) {
      if (host.startMs === undefined) continue;
      const end = Math.max(host.endMs ?? host.startMs, host.startMs);
      all.push({ task, host, start: host.startMs, end, lane: 0 });
    }
  }
  all.sort((a, b) => a.start - b.start);
  for (const bar of all) {
    const bars = rows.get(bar.host.host) ?? [];
    const laneEnds: number[] = [];
    for (const other of bars) laneEnds[other.lane] = Math.max(laneEnds[other.lane] ?? 0, other.end);
    let lane = laneEnds.findIndex((end) => end <= bar.start);
    if (lane < 0) lane = laneEnds.length;
    bar.lane = lane;
    bars.push(bar);
    rows.set(bar.host.host, bars);
  }
  return rows;
}

function renderBar(bar: Bar, y: number, x: (ms: number) => number, span: number): string {
  const { task, host } = bar;
  const parts: string[] = [];
  const ready = task.readyMs;
  if (ready !== undefined && bar.start - ready > span * MIN_WAIT_SHARE) {
    parts.push(
      `<rect class="wait" x="${x(ready).toFixed(1)}" y="${y + 4}" width="${(x(bar.start) - x(ready)).toFixed(1)}" height="${LANE - 8}" fill="url(#wait-hatch)">` +
        `<title>${esc(`${task.name} on ${host.host}: waited ${formatDuration(bar.start - ready)} after it was ready`)}</title></rect>`,
    );
  }
  const left = x(bar.start);
  const width = Math.max(2, x(bar.end) - left);
  const critical = task.onCriticalPath ? ' critical' : '';
  const tip = [
    `${task.name} on ${host.host}: ${host.status}`,
    `started +${formatDuration(bar.start)}, took ${formatDuration(host.durationMs)}`,
    task.onCriticalPath ? 'on the critical path' : '',
    host.retried ? 'passed after a retry' : '',
    host.failure ? host.failure.message : '',
  ]
    .filter(Boolean)
    .join('\n');
  parts.push(
    `<g class="bar ${esc(host.status)}${critical}" data-task="${esc(task.name)}" data-host="${esc(host.host)}" data-phase="${task.phase}">` +
      `<rect x="${left.toFixed(1)}" y="${y}" width="${width.toFixed(1)}" height="${LANE}" rx="3"/>` +
      `<title>${esc(tip)}</title>`,
  );
  // A label inside the bar when it fits, else just after it.
  const label = esc(task.name);
  const fits = width > task.name.length * 6.2 + 8;
  parts.push(
    `<text class="bar-label${fits ? '' : ' outside'}" x="${(fits ? left + 4 : left + width + 3).toFixed(1)}" y="${y + LANE / 2 + 4}">${label}</text></g>`,
  );
  return parts.join('');
}

function phaseBands(summary: CiSummary, x: (ms: number) => number, height: number): string {
  const bands: string[] = [];
  for (const [phase, info] of Object.entries(summary.phases) as [Phase, CiSummary['phases'][Phase]][]) {
    if (info.startMs === undefined || info.endMs === undefined) continue;
    const left = x(info.startMs);
    const width = Math.max(2, x(info.endMs) - left);
    bands.push(
      `<g class="phase" data-phase="${phase}"><rect x="${left.toFixed(1)}" y="20" width="${width.toFixed(1)}" height="${height - 24}" fill="${PHASE_COLOURS[phase]}" opacity="0.45"/>` +
        `<text class="phase-label" x="${(left + 3).toFixed(1)}" y="32">${phase} ${esc(formatDuration(info.durationMs))}</text></g>`,
    );
  }
  return bands.join('\n');
}

/** Ticks at a round step that gives about 8 of them. */
function axis(span: number, x: (ms: number) => number, height: number): string {
  const steps = [1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600].map((s) => s * 1000);
  const step = steps.find((s) => span / s <= 10) ?? 7_200_000;
  const ticks: string[] = [];
  for (let at = 0; at <= span; at += step) {
    ticks.push(
      `<line class="tick" x1="${x(at).toFixed(1)}" y1="12" x2="${x(at).toFixed(1)}" y2="${height - 4}"/>` +
        `<text class="tick-label" x="${x(at).toFixed(1)}" y="10">${esc(formatDuration(at))}</text>`,
    );
  }
  return `<g class="axis">${ticks.join('')}</g>`;
}
