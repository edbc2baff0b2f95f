import { esc, formatDuration } from './html.js';
import type { CiSummary, HostResult, Phase, TaskResult } from './summary-types.js';

const WIDTH = 1200;
/** Left column: host headings and task names. */
const LABEL = 230;
/** Right margin, for the duration written after a bar that ends at the right edge. */
const RIGHT = 64;
const ROW = 20;
const HOST_HEADING = 22;
const TOP = 40;
/** Waits shorter than this share of the run are not drawn (they would be a hairline). */
const MIN_WAIT_SHARE = 0.002;

const PHASE_COLOURS: Record<Phase, string> = {
  provision: '#dbe4f3',
  build: '#e2eedb',
  verify: '#f6e9cf',
  teardown: '#eedcef',
};

interface Row {
  task: TaskResult;
  host: HostResult;
  start: number;
  end: number;
  /** The host that ended last carries a critical task's path; the others had slack. */
  critical: boolean;
  /** When this host last finished something before this row started (or the run started). */
  idleFrom: number;
  /** The need that ended last: what an idle host waited for. */
  waitedFor?: string;
}

/**
 * The run as a Gantt chart (inline SVG, no script): a group per host, a row per task on that host
 * in the order it started. A bar is the task's time on the host; the hatched bar before it is the
 * wait (the task was ready, the host had not started it); a dotted line is the host idle, waiting
 * for a task it needs (named in its tooltip); bars of the observed critical path (on the host
 * that finished its task last) are outlined and starred; phases are bands behind the bars. Every bar carries `data-task` /
 * `data-host` and a tooltip with its times.
 */
export function renderTimeline(summary: CiSummary): string {
  const span = Math.max(1, summary.durationMs);
  const x = (ms: number) => LABEL + ((WIDTH - LABEL - RIGHT) * Math.min(span, Math.max(0, ms))) / span;
  const parts: string[] = [];
  let y = TOP;
  for (const [host, rows] of hostGroups(summary)) {
    parts.push(`<g class="host-group" data-host="${esc(host)}">`);
    parts.push(`<rect class="host-heading" x="0" y="${y}" width="${WIDTH}" height="${HOST_HEADING}"/>`);
    parts.push(`<text class="host-label" x="8" y="${y + 15}">${esc(host)}</text>`);
    y += HOST_HEADING;
    for (const [index, row] of rows.entries()) {
      if (index % 2 === 1)
        parts.push(`<rect class="row-alt" x="0" y="${y}" width="${WIDTH}" height="${ROW}"/>`);
      parts.push(renderRow(row, y, x, span));
      y += ROW;
    }
    parts.push('</g>');
    y += 6;
  }
  const height = y + 4;
  return [
    `<svg class="timeline" viewBox="0 0 ${WIDTH} ${height}" width="100%" role="img" aria-label="Timeline of every task on every host">`,
    '<defs><pattern id="wait-hatch" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)">',
    '<rect width="6" height="6" fill="#f1f1f1"/><line x1="0" y1="0" x2="0" y2="6" stroke="#9a9a9a" stroke-width="2"/></pattern></defs>',
    phaseBands(summary, x, height),
    axis(span, x, height),
    ...parts,
    '</svg>',
  ].join('\n');
}

/** Rows per host, hosts in the order they first worked, each host's tasks in the order they started. */
function hostGroups(summary: CiSummary): Map<string, Row[]> {
  const byName = new Map(summary.tasks.map((t) => [t.name, t]));
  const rows: Row[] = [];
  for (const task of summary.tasks) {
    const lastEnd = Math.max(...task.hosts.map((h) => h.endMs ?? Number.NEGATIVE_INFINITY));
    for (const host of task.hosts) {
      if (host.startMs === undefined) continue;
      const needs = task.needs.flatMap((n) => {
        const need = byName.get(n);
        return need?.endMs !== undefined ? [need] : [];
      });
      const waitedFor = needs.sort((a, b) => (b.endMs ?? 0) - (a.endMs ?? 0))[0]?.name;
      rows.push({
        task,
        host,
        start: host.startMs,
        end: Math.max(host.endMs ?? host.startMs, host.startMs),
        critical: task.onCriticalPath && host.endMs === lastEnd,
        idleFrom: 0,
        ...(waitedFor ? { waitedFor } : {}),
      });
    }
  }
  rows.sort((a, b) => a.start - b.start);
  const groups = new Map<string, Row[]>();
  for (const row of rows) {
    const group = groups.get(row.host.host) ?? [];
    row.idleFrom = Math.max(0, ...group.map((r) => r.end).filter((end) => end <= row.start));
    group.push(row);
    groups.set(row.host.host, group);
  }
  return groups;
}

function renderRow(row: Row, y: number, x: (ms: number) => number, span: number): string {
  const { task, host } = row;
  const critical = row.critical ? ' critical' : '';
  const parts = [
    `<g class="bar ${esc(host.status)}${critical}" data-task="${esc(task.name)}" data-host="${esc(host.host)}" data-phase="${task.phase}">`,
    `<text class="task-label" x="22" y="${y + 14}">${esc(task.name)}${row.critical ? ' ★' : ''}</text>`,
  ];
  // The host sat idle before this task: say what it waited for.
  const idleEnd = Math.min(row.start, task.readyMs ?? row.start);
  if (idleEnd - row.idleFrom > span * MIN_WAIT_SHARE * 5 && row.waitedFor) {
    parts.push(
      `<line class="idle" x1="${x(row.idleFrom).toFixed(1)}" y1="${y + ROW / 2}" x2="${x(idleEnd).toFixed(1)}" y2="${y + ROW / 2}">` +
        `<title>${esc(`${host.host} idle ${formatDuration(idleEnd - row.idleFrom)}: ${task.name} waited for ${row.waitedFor}`)}</title></line>`,
    );
  }
  const ready = task.readyMs;
  if (ready !== undefined && row.start - ready > span * MIN_WAIT_SHARE) {
    parts.push(
      `<rect class="wait" x="${x(ready).toFixed(1)}" y="${y + 5}" width="${(x(row.start) - x(ready)).toFixed(1)}" height="${ROW - 10}" fill="url(#wait-hatch)">` +
        `<title>${esc(`${task.name} on ${host.host}: waited ${formatDuration(row.start - ready)} after it was ready`)}</title></rect>`,
    );
  }
  const left = x(row.start);
  const width = Math.max(2, x(row.end) - left);
  const tip = [
    `${task.name} on ${host.host}: ${host.status}`,
    `started +${formatDuration(row.start)}, took ${formatDuration(host.durationMs)}`,
    row.critical ? 'on the critical path' : '',
    host.retried ? 'passed after a retry' : '',
    host.failure ? host.failure.message : '',
  ]
    .filter(Boolean)
    .join('\n');
  parts.push(
    `<rect class="span" x="${left.toFixed(1)}" y="${y + 3}" width="${width.toFixed(1)}" height="${ROW - 6}" rx="2"><title>${esc(tip)}</title></rect>`,
    `<text class="took" x="${(left + width + 4).toFixed(1)}" y="${y + 14}">${esc(formatDuration(host.durationMs))}${host.retried ? ' (retried)' : ''}</text>`,
    '</g>',
  );
  return parts.join('');
}

function phaseBands(summary: CiSummary, x: (ms: number) => number, height: number): string {
  const bands: string[] = [];
  for (const [phase, info] of Object.entries(summary.phases) as [Phase, CiSummary['phases'][Phase]][]) {
    if (info.startMs === undefined || info.endMs === undefined) continue;
    const left = x(info.startMs);
    const width = Math.max(2, x(info.endMs) - left);
    const label = `${phase} ${formatDuration(info.durationMs)}`;
    // A label wider than its band would run into the next one: the tooltip says it then.
    const text =
      width >= label.length * 6 + 6
        ? `<text class="phase-label" x="${(left + 3).toFixed(1)}" y="31">${esc(label)}</text>`
        : '';
    bands.push(
      `<g class="phase" data-phase="${phase}"><rect x="${left.toFixed(1)}" y="20" width="${width.toFixed(1)}" height="${height - 22}" fill="${PHASE_COLOURS[phase]}" opacity="0.55"><title>${esc(label)}</title></rect>${text}</g>`,
    );
  }
  return bands.join('\n');
}

/** Ticks at a round step that gives at most about 10 of them. */
function axis(span: number, x: (ms: number) => number, height: number): string {
  const steps = [1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600].map((s) => s * 1000);
  const step = steps.find((s) => span / s <= 10) ?? 7_200_000;
  const ticks: string[] = [];
  for (let at = 0; at <= span; at += step) {
    ticks.push(
      `<line class="tick" x1="${x(at).toFixed(1)}" y1="12" x2="${x(at).toFixed(1)}" y2="${height - 2}"/>` +
        `<text class="tick-label" x="${x(at).toFixed(1)}" y="10">${at === 0 ? '0' : esc(formatDuration(at))}</text>`,
    );
  }
  return `<g class="axis">${ticks.join('')}</g>`;
}
