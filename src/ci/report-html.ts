import type { History } from './history.js';
import { badge, esc, formatDuration, table } from './html.js';
import { REPORT_CSS } from './report-css.js';
import { renderHistory } from './report-history.js';
import { renderTimeline } from './report-timeline.js';
import { type CiSummary, PHASES } from './summary-types.js';

const HEADLINES: Record<CiSummary['outcome'], string> = {
  passed: 'PASSED',
  failed: 'FAILED',
  'timed-out': 'TIMED OUT',
  interrupted: 'INTERRUPTED',
  'teardown-failed': 'TEARDOWN FAILED: resources may be left behind',
};

/**
 * The run as one self-contained HTML page (inline CSS and SVG, no script, nothing fetched): the
 * outcome first, then failure excerpts, the timeline, tasks, verify checks, teardown, secret
 * scan, versions, the history when there is one, and the other files of the out directory.
 */
export function renderReport(summary: CiSummary, options: { history?: History; files: string[] }): string {
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" href="data:,">
<title>${esc(`kubemix ci ${summary.cluster}: ${HEADLINES[summary.outcome]}`)}</title>
<style>${REPORT_CSS}</style>
</head>
<body>
${outcome(summary)}
${failures(summary)}
<section id="timeline"><h2>Timeline</h2>
<p class="legend"><span class="key passed"></span> passed <span class="key failed"></span> failed
<span class="key error"></span> stopped <span class="key critical"></span> critical path: ${esc(summary.criticalPath.tasks.join(' → ') || 'none')} (${esc(formatDuration(summary.criticalPath.durationMs))} of work)
<span class="key wait"></span> waiting (ready, not started)
<span class="key idle"></span> host idle, waiting for a task it needs (hover for details)</p>
${renderTimeline(summary)}
</section>
${tasks(summary)}
${checks(summary)}
<section id="teardown"><h2>Teardown</h2><p>${badge(summary.teardown.status)} ${esc(summary.teardown.message)}</p></section>
${secretScan(summary)}
${versions(summary)}
${options.history ? renderHistory(options.history, summary) : ''}
${files(options.files)}
</body>
</html>
`;
}

function outcome(summary: CiSummary): string {
  const phases = PHASES.map((phase) => {
    const info = summary.phases[phase];
    return `<span class="phase-chip ${esc(info.status)}">${phase} ${esc(info.status === 'skipped' ? 'not run' : formatDuration(info.durationMs))}</span>`;
  }).join(' ');
  return `<header class="outcome ${esc(summary.outcome)}">
<h1>${esc(HEADLINES[summary.outcome])}</h1>
<p class="what">kubemix ci <strong>${esc(summary.cluster)}</strong> (${esc(summary.spec)}), started ${esc(summary.startedAt)}, took ${esc(formatDuration(summary.durationMs))}, exit code ${summary.exitCode}</p>
${summary.message ? `<p class="why">${esc(summary.message)}</p>` : ''}
<p class="phases">${phases}</p>
</header>`;
}

function failures(summary: CiSummary): string {
  const teardownLoud =
    summary.outcome === 'teardown-failed'
      ? `<p class="loud">The teardown did not finish: machines, networks or cluster state may still exist and cost money or disk. Run <code>kubemix down ${esc(summary.spec)}</code> and check the provider.</p>`
      : '';
  if (summary.failures.length === 0) return teardownLoud;
  const items = summary.failures.map(
    (f) => `<article class="failure ${esc(f.kind)}">
<h3>${esc(f.task)} on ${esc(f.host)} <small>${esc(f.phase)}</small></h3>
<p>${esc(f.message)}</p>
<dl><dt>step</dt><dd>${esc(f.step)}</dd><dt>ran</dt><dd><code>${esc(f.command || '(nothing)')}</code></dd><dt>exit code</dt><dd>${esc(f.exitCode ?? 'none')}</dd></dl>
${f.outputTail ? `<pre>${esc(f.outputTail)}</pre>` : ''}
</article>`,
  );
  return `<section id="failures"><h2>Failures</h2>${teardownLoud}\n${items.join('\n')}</section>`;
}

function tasks(summary: CiSummary): string {
  const rows = summary.tasks.map((t) => [
    `${esc(t.name)}${t.onCriticalPath ? ' <span class="crit" title="on the critical path">★</span>' : ''}`,
    esc(t.phase),
    badge(t.status),
    esc(t.hosts.map((h) => h.host).join(', ')),
    t.startMs === undefined ? '' : `+${esc(formatDuration(t.startMs))}`,
    t.startMs === undefined ? '' : esc(formatDuration(t.waitMs)),
    t.startMs === undefined ? esc(t.reason ?? '') : esc(formatDuration(t.durationMs)),
    t.retried ? 'passed after a retry' : '',
  ]);
  return `<section id="tasks"><h2>Tasks</h2>${table(['task', 'phase', 'status', 'hosts', 'started', 'waited', 'took', 'note'], rows)}</section>`;
}

function checks(summary: CiSummary): string {
  const rows = summary.verify.checks.map((c) => [
    esc(c.check),
    badge(c.status),
    esc(c.detail),
    c.command ? `<code>${esc(c.command)}</code>` : '',
    esc(formatDuration(c.durationMs)),
  ]);
  return `<section id="verify"><h2>Verify checks</h2>${table(['check', 'status', 'result', 'ran', 'took'], rows)}</section>`;
}

function secretScan(summary: CiSummary): string {
  const { findings, filesScanned } = summary.secretScan;
  if (findings.length === 0)
    return `<section id="secret-scan"><h2>Secret scan</h2><p>${badge('passed')} no secrets in ${filesScanned} files</p></section>`;
  const rows = findings.map((f) => [esc(f.file), esc(f.line), esc(f.kind)]);
  return `<section id="secret-scan"><h2>Secret scan</h2><p>${badge('failed')} ${findings.length} found and redacted:</p>${table(['file', 'line', 'kind'], rows)}</section>`;
}

function versions(summary: CiSummary): string {
  const hosts = summary.hosts.map((h) => [
    esc(h.name),
    esc(h.role),
    esc(h.os === 'windows' ? `Windows Server ${h.windowsVersion ?? ''}` : h.os),
  ]);
  const pinned = Object.entries(summary.versions)
    .filter(([name]) => !name.endsWith('-sha256'))
    .map(([name, value]) => [esc(name), `<code>${esc(value)}</code>`]);
  return `<section id="versions"><h2>Versions</h2>
<div class="columns">${table(['host', 'role', 'os'], hosts)}${table(['component', 'version'], pinned, 'versions')}</div>
<p class="note">Digests and every other pinned value: versions.json.</p></section>`;
}

function files(names: string[]): string {
  const items = names.map((name) => `<li><a href="${esc(encodeURI(name))}">${esc(name)}</a></li>`).join('');
  return `<section id="files"><h2>Files</h2><ul class="files">${items}</ul></section>`;
}
