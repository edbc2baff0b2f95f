/**
 * The results of the `verify` task's checks, read back from the outputs the engine stored: each
 * check step printed one JSON line `{"check", "ok", "detail", "command"}` and registered it as
 * `check_<name>`. A check covers every workload the cluster runs (agnhost netexec on Linux,
 * win-webserver on Windows) in one result; its detail names the pods and nodes it tried. Pure:
 * no I/O.
 */

/**
 * The checks verify.yml runs, in the order the Kubernetes Windows guide lists its validation
 * (the same six whatever operating systems the cluster has).
 */
export const CHECK_NAMES = [
  'node-to-pod',
  'pod-to-pod',
  'service-vip',
  'service-dns',
  'nodeport',
  'outbound',
] as const;

/** Name of a check verify.yml runs. */
export type CheckName = (typeof CHECK_NAMES)[number];

/** One check's outcome. */
export interface CheckResult {
  /** `node-to-pod`, `pod-to-pod`, ... (a name verify.yml does not know is kept as printed). */
  check: string;
  ok: boolean;
  /**
   * What happened, part by part, e.g. `linux-netexec-x on w1 (10.244.1.2): hostname linux-netexec-x;
   * win-webserver-2022-y on win1 (10.244.2.3): HTTP 200`, or the tool's error line.
   */
  detail: string;
  /** What ran on the controller. */
  command: string;
}

/** Prefix of the register names of the check steps (`check_node_to_pod`). */
export const CHECK_OUTPUT_PREFIX = 'check_';

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null;

/** The JSON line of a registered value: a string (stdout), or a register result with `stdout`. */
function jsonLine(value: unknown): string | undefined {
  const text = typeof value === 'string' ? value : isRecord(value) ? value['stdout'] : undefined;
  if (typeof text !== 'string') return undefined;
  // The check prints one line; anything printed before it (warnings) is ignored.
  return text
    .split('\n')
    .map((l) => l.trim())
    .findLast((l) => l.startsWith('{'));
}

/** One stored output as a result; malformed output becomes a failed result saying why. */
function parseOne(key: string, value: unknown): CheckResult {
  const fallbackName = key.slice(CHECK_OUTPUT_PREFIX.length).replace(/_/g, '-');
  const unreadable = (why: string): CheckResult => ({
    check: fallbackName,
    ok: false,
    detail: `unreadable output in outputs.${key}: ${why}`,
    command: '',
  });
  const direct = isRecord(value) && typeof value['check'] === 'string' ? value : undefined;
  let parsed: unknown = direct;
  if (!direct) {
    const line = jsonLine(value);
    if (line === undefined) return unreadable('no JSON line');
    try {
      parsed = JSON.parse(line);
    } catch (error) {
      return unreadable((error as Error).message);
    }
  }
  if (!isRecord(parsed)) return unreadable('not a JSON object');
  const { check, ok, detail, command } = parsed;
  if (typeof check !== 'string' || check === '') return unreadable('"check" is not a string');
  if (typeof ok !== 'boolean') return unreadable('"ok" is not true or false');
  return {
    check,
    ok,
    detail: typeof detail === 'string' ? detail : '',
    command: typeof command === 'string' ? command : '',
  };
}

const rank = (name: string) => {
  const i = (CHECK_NAMES as readonly string[]).indexOf(name);
  return i < 0 ? CHECK_NAMES.length : i;
};

/**
 * Reads the `check_*` entries of one host's outputs (`state.json` `outputs[host]`), in the
 * Windows guide's order (unknown checks last, by name). Other outputs are ignored.
 */
export function parseCheckResults(outputs: Record<string, unknown>): CheckResult[] {
  return Object.entries(outputs)
    .filter(([key]) => key.startsWith(CHECK_OUTPUT_PREFIX) && key.length > CHECK_OUTPUT_PREFIX.length)
    .map(([key, value]) => parseOne(key, value))
    .sort((a, b) => rank(a.check) - rank(b.check) || a.check.localeCompare(b.check));
}

/** Checks of `CHECK_NAMES` with no result (verify stopped early, or ran an older task file). */
export function missingChecks(results: readonly CheckResult[]): CheckName[] {
  return CHECK_NAMES.filter((name) => !results.some((r) => r.check === name));
}

const oneLine = (s: string) => s.replace(/\s+/g, ' ').trim();

/**
 * A fixed-width table: CHECK, OK, DETAIL (detail on one line, cut at `maxDetail` characters
 * with `...`). Ends with a newline; an empty list gives the header only.
 */
export function formatCheckTable(
  results: readonly CheckResult[],
  options: { maxDetail?: number } = {},
): string {
  const max = Math.max(10, options.maxDetail ?? 100);
  const rows = results.map((r) => {
    const detail = oneLine(r.detail);
    return [r.check, r.ok ? 'ok' : 'FAILED', detail.length > max ? `${detail.slice(0, max - 3)}...` : detail];
  });
  const header = ['CHECK', 'OK', 'DETAIL'];
  const widths = [0, 1].map((i) => Math.max(header[i]!.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) =>
    `${cells[0]!.padEnd(widths[0]! + 2)}${cells[1]!.padEnd(widths[1]! + 2)}${cells[2]}`.trimEnd();
  return `${[header, ...rows].map(line).join('\n')}\n`;
}

/** The JSON document the CLI writes: overall `ok`, the failed check names, and every result. */
export function checksToJson(results: readonly CheckResult[]): string {
  const failed = results.filter((r) => !r.ok).map((r) => r.check);
  const missing = missingChecks(results);
  return `${JSON.stringify(
    {
      ok: failed.length === 0 && missing.length === 0,
      passed: results.length - failed.length,
      failed,
      missing,
      checks: results,
    },
    null,
    2,
  )}\n`;
}
