/**
 * Text fitted to a terminal width: words wrapped, cells cut with an ellipsis, columns shrunk until
 * a table fits. Pure: the width is passed in (see terminal-width.ts for where it comes from).
 * Widths count UTF-16 code units; kubemix's names, addresses and versions are ASCII.
 */

const ELLIPSIS = '…';

/** `text` cut to `width` columns, its last kept column an ellipsis when anything was cut. */
export function truncate(text: string, width: number): string {
  if (text.length <= width) return text;
  if (width <= 0) return '';
  return `${text.slice(0, width - 1)}${ELLIPSIS}`;
}

/**
 * Where to break a word longer than `width`: after the last `/`, `-`, `:` or `,` that leaves at
 * least half a line (a URL breaks between its parts), else at the width.
 */
function breakPoint(word: string, width: number): number {
  for (let i = width; i > width / 2; i--) if ('/-:,'.includes(word[i - 1]!)) return i;
  return width;
}

/**
 * `text` as lines of at most `width` columns, broken at spaces; a word longer than a line is
 * broken where it must (a URL in a narrow column), so nothing is lost.
 */
export function wrapText(text: string, width: number): string[] {
  if (width <= 0) return [''];
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/).filter(Boolean)) {
    const candidate = line === '' ? word : `${line} ${word}`;
    if (candidate.length <= width) {
      line = candidate;
      continue;
    }
    if (line !== '') lines.push(line);
    let rest = word;
    while (rest.length > width) {
      const cut = breakPoint(rest, width);
      lines.push(rest.slice(0, cut));
      rest = rest.slice(cut);
    }
    line = rest;
  }
  lines.push(line);
  return lines;
}

/** A table column: its header, and what a cell too wide for it does (wrap: more lines; truncate: an ellipsis). */
export interface Column {
  header: string;
  overflow: 'wrap' | 'truncate';
  /** The column is not shrunk below this (default: its header, at least 6, at most its widest cell). */
  minWidth?: number;
  /** Shrink this column to its minimum before any other (a description that may be cut, say). */
  shrinksFirst?: boolean;
  /**
   * With shrinksFirst: shrink first only down to this width, then with the others (a description
   * gives way to a point, then the lists that wrap without loss give way before it is cut further).
   */
  shrinksFirstTo?: number;
  /** Leave the column out when the others and its minimum do not fit the width together. */
  optional?: boolean;
}

/** Options of {@link fitTable}. */
export interface FitTableOptions {
  /** Every line, indent included, is at most this wide. */
  width: number;
  /** Put before every line (e.g. two spaces under a heading). */
  indent?: string;
}

const GAP = 2;

/**
 * Column widths that fit `available`: the natural widths when they fit; else the columns that
 * shrink first, then the widest column that wraps, then the widest column, made one narrower at a time (never below its minimum)
 * until the sum fits or nothing can shrink.
 */
function columnWidths(columns: readonly Column[], rows: readonly string[][], available: number): number[] {
  const widths = columns.map((column, i) =>
    Math.max(column.header.length, ...rows.map((row) => (row[i] ?? '').length)),
  );
  const floors = columns.map((column, i) =>
    Math.min(widths[i]!, column.minWidth ?? Math.max(column.header.length, 6)),
  );
  let total = widths.reduce((a, b) => a + b, 0);
  const canShrink = (i: number) => widths[i]! > floors[i]!;
  const widestWhere = (ok: (i: number) => boolean) => {
    let best = -1;
    for (let i = 0; i < widths.length; i++) if (ok(i) && (best < 0 || widths[i]! > widths[best]!)) best = i;
    return best;
  };
  while (total > available) {
    const first = columns.findIndex(
      (column, i) =>
        column.shrinksFirst === true && canShrink(i) && widths[i]! > (column.shrinksFirstTo ?? 0),
    );
    // Then the widest column that wraps (wrapping loses nothing), then the widest of any kind.
    let widest = first;
    if (widest < 0) widest = widestWhere((i) => canShrink(i) && columns[i]!.overflow === 'wrap');
    if (widest < 0) widest = widestWhere(canShrink);
    if (widest < 0) break;
    widths[widest]! -= 1;
    total -= 1;
  }
  return widths;
}

/**
 * Rows under a header as aligned columns, every line at most `width` wide: cells wrap within their
 * column or are cut with an ellipsis, as their column says. An optional column is left out when the
 * table does not fit with it; a width too small for the columns' minimums cuts the lines
 * themselves, so the limit always holds.
 */
export function fitTable(
  columns: readonly Column[],
  rows: readonly string[][],
  options: FitTableOptions,
): string[] {
  const indent = options.indent ?? '';
  const available = options.width - indent.length - GAP * (columns.length - 1);
  const widths = columnWidths(columns, rows, available);
  const dropped = columns.findLastIndex((c) => c.optional === true);
  if (dropped >= 0 && widths.reduce((a, b) => a + b, 0) > available) {
    const keep = (_: unknown, i: number) => i !== dropped;
    return fitTable(
      columns.filter(keep),
      rows.map((row) => row.filter(keep)),
      options,
    );
  }
  const lines: string[] = [];
  for (const row of [columns.map((c) => c.header), ...rows]) {
    const cells = columns.map((column, i) => {
      const text = row[i] ?? '';
      return column.overflow === 'wrap' ? wrapText(text, widths[i]!) : [truncate(text, widths[i]!)];
    });
    const height = Math.max(...cells.map((c) => c.length));
    for (let n = 0; n < height; n++) {
      const line = cells.map((c, i) => (c[n] ?? '').padEnd(widths[i]!)).join(' '.repeat(GAP));
      lines.push(truncate(`${indent}${line}`.trimEnd(), options.width));
    }
  }
  return lines;
}
