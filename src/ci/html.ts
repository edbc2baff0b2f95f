import { xmlEscape } from '../quote/index.js';

/** Text escaped for HTML element content and double-quoted attribute values. */
export const esc = (value: string | number): string => xmlEscape(String(value));

/** A duration as people read it: 850 ms, 12.3 s, 4m 05s, 1h 02m. */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const totalSeconds = Math.round(ms / 1000);
  const hours = Math.floor(totalSeconds / 3600);
  const minutes = Math.floor((totalSeconds % 3600) / 60);
  const secs = totalSeconds % 60;
  if (hours > 0) return `${hours}h ${String(minutes).padStart(2, '0')}m`;
  return `${minutes}m ${String(secs).padStart(2, '0')}s`;
}

/** A table: header cells, then rows of already-escaped HTML cells. */
export function table(headers: string[], rows: string[][], className = ''): string {
  const head = headers.map((h) => `<th>${esc(h)}</th>`).join('');
  const body = rows.map((cells) => `<tr>${cells.map((c) => `<td>${c}</td>`).join('')}</tr>`).join('\n');
  return `<table${className ? ` class="${className}"` : ''}><thead><tr>${head}</tr></thead><tbody>\n${body}\n</tbody></table>`;
}

/** A status word with its colour class (passed, failed, error, skipped, kept...). */
export const badge = (status: string): string => `<span class="badge ${esc(status)}">${esc(status)}</span>`;
