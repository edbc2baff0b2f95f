import { existsSync, readFileSync, writeFileSync } from 'node:fs';

/** A benchmark figure held to a target and compared with the results the repository keeps. */
export interface Figure {
  value: number;
  unit: 'ms' | 'x' | 'MB' | 'fds';
  /** The figure meets its target when it is at most this. */
  max?: number;
}

/** The results file the repository keeps: the figures of the last accepted bench run. */
export interface KeptResults {
  date: string;
  figures: Record<string, Figure>;
}

const show = (value: number, unit: Figure['unit']) =>
  unit === 'ms'
    ? value >= 1000
      ? `${(value / 1000).toFixed(2)} s`
      : `${value.toFixed(0)} ms`
    : unit === 'x'
      ? `${value.toFixed(2)}x`
      : `${value.toFixed(0)} ${unit}`;

/**
 * The figures of one bench run. Each `add` returns the words printed after the figure: its
 * target (met or not) and its change against the same figure in the kept results, so a
 * regression shows in the output of the run that made it.
 */
export class Figures {
  readonly current: Record<string, Figure> = {};
  private readonly kept: KeptResults | undefined;

  constructor(private readonly keptPath: string) {
    this.kept = existsSync(keptPath)
      ? (JSON.parse(readFileSync(keptPath, 'utf8')) as KeptResults)
      : undefined;
  }

  /** Records figure `name`; returns "target <= X met; was Y on DATE (+Z%)". */
  add(name: string, figure: Figure): string {
    this.current[name] = figure;
    const parts: string[] = [];
    if (figure.max !== undefined)
      parts.push(
        `target <= ${show(figure.max, figure.unit)} ${figure.value <= figure.max ? 'met' : 'NOT met'}`,
      );
    const before = this.kept?.figures[name];
    if (before && before.unit === figure.unit && before.value > 0) {
      const change = ((figure.value - before.value) / before.value) * 100;
      parts.push(
        `was ${show(before.value, before.unit)} on ${this.kept!.date.slice(0, 10)} (${change >= 0 ? '+' : ''}${change.toFixed(0)}%)`,
      );
    } else parts.push('new figure');
    return `[${parts.join('; ')}]`;
  }

  /** Makes this run's figures the kept results (`npm run bench -- --keep`), over the same names. */
  keep(date: string): void {
    const figures = { ...(this.kept?.figures ?? {}), ...this.current };
    writeFileSync(this.keptPath, `${JSON.stringify({ date, figures } satisfies KeptResults, null, 2)}\n`);
  }
}
