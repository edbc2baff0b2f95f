const UNITS: Record<string, number> = { h: 3_600_000, m: 60_000, s: 1000, ms: 1 };

/**
 * A duration as kubectl's `--timeout` and Go's time.ParseDuration write them (`90m`, `1h30m`,
 * `45s`, `1.5h`), in milliseconds; undefined when the text is not one, or is not above zero.
 */
export function parseDuration(text: string): number | undefined {
  const trimmed = text.trim();
  if (!/^(\d+(\.\d+)?(h|ms|m|s))+$/.test(trimmed)) return undefined;
  let total = 0;
  for (const [, amount, , unit] of trimmed.matchAll(/(\d+(\.\d+)?)(h|ms|m|s)/g))
    total += Number(amount) * UNITS[unit!]!;
  return total > 0 ? Math.round(total) : undefined;
}
