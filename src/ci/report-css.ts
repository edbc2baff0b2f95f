/** The report's style sheet, inlined so the page needs nothing else. */
export const REPORT_CSS = `
:root { --ok: #2f8f4e; --bad: #c62828; --warn: #e08a00; --muted: #6b7280; --line: #e5e7eb; }
* { box-sizing: border-box; }
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; margin: 0 auto; max-width: 1280px; padding: 0 20px 40px; color: #1f2328; }
h1 { margin: 0 0 6px; font-size: 28px; }
h2 { margin: 28px 0 10px; font-size: 19px; border-bottom: 1px solid var(--line); padding-bottom: 4px; }
h3 { margin: 14px 0 6px; font-size: 15px; }
code, pre { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 12.5px; }
pre { background: #111827; color: #e5e7eb; padding: 10px 12px; border-radius: 6px; overflow-x: auto; white-space: pre-wrap; word-break: break-word; }
.outcome { margin: 16px 0 8px; padding: 16px 20px; border-radius: 8px; color: #fff; }
.outcome.passed { background: var(--ok); }
.outcome.failed, .outcome.timed-out, .outcome.interrupted { background: var(--bad); }
.outcome.teardown-failed { background: #7f0000; border: 4px solid #ff5252; }
.outcome p { margin: 4px 0; }
.outcome .why { font-weight: 600; }
.phase-chip { display: inline-block; padding: 2px 10px; margin: 4px 4px 0 0; border-radius: 12px; background: rgba(255,255,255,0.2); border: 1px solid rgba(255,255,255,0.5); }
.phase-chip.failed, .phase-chip.error { background: rgba(0,0,0,0.35); font-weight: 600; }
.loud { padding: 10px 14px; background: #ffebee; border-left: 6px solid var(--bad); font-weight: 600; }
.failure { border: 1px solid #f3c2c2; border-left: 5px solid var(--bad); border-radius: 6px; padding: 8px 14px; margin: 10px 0; background: #fffafa; }
.failure.interrupted, .failure.timed-out { border-left-color: var(--warn); }
.failure h3 small { color: var(--muted); font-weight: normal; }
.failure dl { display: grid; grid-template-columns: max-content 1fr; gap: 2px 12px; margin: 6px 0; }
.failure dt { color: var(--muted); }
.failure dd { margin: 0; word-break: break-word; }
table { border-collapse: collapse; margin: 6px 0; }
th, td { text-align: left; padding: 4px 10px; border-bottom: 1px solid var(--line); vertical-align: top; }
th { background: #f6f8fa; font-weight: 600; }
td code { word-break: break-all; }
.badge { display: inline-block; padding: 0 8px; border-radius: 10px; font-size: 12px; font-weight: 600; color: #fff; background: var(--muted); }
.badge.passed { background: var(--ok); }
.badge.failed, .badge.teardown-failed, .badge.timed-out { background: var(--bad); }
.badge.error, .badge.interrupted, .badge.kept { background: var(--warn); }
.crit { color: #b45309; }
.legend { color: var(--muted); }
.key { display: inline-block; width: 14px; height: 10px; margin: 0 4px 0 12px; border-radius: 2px; vertical-align: middle; }
.key.passed { background: #4c9a6a; } .key.failed { background: #d64545; } .key.error { background: #f0a030; }
.key.critical { background: #fff; border: 2px solid #111827; }
.key.wait { background: repeating-linear-gradient(45deg, #f4f4f4 0 3px, #a8a8a8 3px 5px); }
.key.idle { height: 0; border-top: 2px dotted #9aa3ae; border-radius: 0; }
svg.timeline { display: block; border: 1px solid var(--line); border-radius: 6px; background: #fff; }
.timeline .host-heading { fill: #eef1f5; }
.timeline .row-alt { fill: #fafbfc; }
.timeline .host-label { font-size: 12.5px; font-weight: 700; fill: #111827; }
.timeline .task-label { font-size: 11.5px; fill: #1f2328; }
.timeline .bar.critical .task-label { font-weight: 700; }
.timeline .tick { stroke: #d9dde3; stroke-width: 1; stroke-dasharray: 2 3; }
.timeline .tick-label { font-size: 10px; fill: var(--muted); text-anchor: middle; }
.timeline .phase-label { font-size: 10.5px; font-weight: 700; fill: #374151; }
.timeline .span { stroke: rgba(0,0,0,0.25); stroke-width: 0.5; }
.timeline .bar.passed .span { fill: #4c9a6a; }
.timeline .bar.failed .span { fill: #d64545; }
.timeline .bar.error .span { fill: #f0a030; }
.timeline .bar.critical .span { stroke: #111827; stroke-width: 2; }
.timeline .idle { stroke: #9aa3ae; stroke-width: 1.5; stroke-dasharray: 1 3; }
.timeline .took { font-size: 10.5px; fill: var(--muted); }
.columns { display: flex; gap: 24px; flex-wrap: wrap; align-items: flex-start; }
.note, .muted { color: var(--muted); }
.trend { display: inline-block; width: 60px; height: 8px; background: #eef0f2; border-radius: 2px; vertical-align: middle; }
.trend span { display: block; height: 100%; background: #4c9a6a; border-radius: 2px; }
.trend.failed span { background: #d64545; } .trend.error span { background: #f0a030; }
.scroll { overflow-x: auto; }
.nowrap { white-space: nowrap; }
ul.files { columns: 3; }
`;
