import { readdir } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { writePrivateFile } from '../fs/private-files.js';
import { buildSummary, CI_EXIT, type SummaryInput } from './build-summary.js';
import { type History, recordHistory } from './history.js';
import { renderJunit } from './junit.js';
import { renderReport } from './report-html.js';
import { scanDirectory, scanText } from './secret-scan.js';
import type { CiSummary, SecretFinding } from './summary-types.js';

/** The files {@link writeReports} writes last, after scanning everything else. */
export const REPORT_FILES = ['summary.json', 'junit.xml', 'report.html'] as const;

/** What the reporting wrote, and what the last scan still found in it. */
export interface WrittenReports {
  summary: CiSummary;
  history?: History;
  /** Secrets the final scan found in the reports themselves (redacted there). Should be empty. */
  lateFindings: SecretFinding[];
}

/**
 * The end of a CI run: scans what the run wrote to `outDir` (events, host logs, plan, spec,
 * verify.json) for secrets and redacts them; builds the summary (a secret found fails the run),
 * redacts it too; adds it to the history; writes summary.json, junit.xml and report.html; and
 * scans the whole directory once more, last.
 */
export async function writeReports(options: {
  outDir: string;
  /** The summary input, less what the scan finds and the reporting time. */
  input: Omit<SummaryInput, 'secretFindings' | 'filesScanned' | 'reportingMs'>;
  knownSecrets: string[];
  /** Reporting time spent so far (event subscribers, input files). */
  reportingMs: number;
  history?: { dir: string; keep: number };
}): Promise<WrittenReports> {
  const started = performance.now();
  const { outDir, knownSecrets } = options;
  const scan = await scanDirectory(outDir, knownSecrets);
  const summarise = (findings: SecretFinding[]) =>
    buildSummary({
      ...options.input,
      secretFindings: findings,
      filesScanned: scan.filesScanned + REPORT_FILES.length,
      reportingMs: options.reportingMs + (performance.now() - started),
    });
  // What the events carried reaches the summary from memory, not from the scanned files: the
  // summary gets the same scan, and what it finds there counts as found in summary.json.
  const first = redactSummary(summarise(scan.findings), knownSecrets);
  let summary = first.summary;
  if (first.findings.length > 0)
    summary = redactSummary(summarise([...scan.findings, ...first.findings]), knownSecrets).summary;
  const history = options.history
    ? await recordHistory(options.history.dir, summary, options.history.keep)
    : undefined;
  const files = [...REPORT_FILES, ...(await listFiles(outDir))].filter((f, i, all) => all.indexOf(f) === i);
  await writePrivateFile(join(outDir, 'junit.xml'), renderJunit(summary, { hostname: hostname() }));
  await writePrivateFile(
    join(outDir, 'report.html'),
    renderReport(summary, {
      ...(history ? { history } : {}),
      files: files.filter((f) => f !== 'report.html'),
    }),
  );
  await writePrivateFile(join(outDir, 'summary.json'), `${JSON.stringify(summary, null, 2)}\n`);
  const last = await scanDirectory(outDir, knownSecrets);
  return { summary, ...(history ? { history } : {}), lateFindings: last.findings };
}

/** The summary with every secret the scan recognises replaced, and where (in summary.json) it was. */
function redactSummary(
  summary: CiSummary,
  knownSecrets: string[],
): { summary: CiSummary; findings: SecretFinding[] } {
  const scan = scanText(JSON.stringify(summary, null, 2), knownSecrets);
  if (scan.findings.length === 0) return { summary, findings: [] };
  const redacted = JSON.parse(scan.redacted) as CiSummary;
  return { summary: redacted, findings: scan.findings.map((f) => ({ file: 'summary.json', ...f })) };
}

async function listFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name).slice(dir.length + 1))
    .sort();
}

/** The exit code once the last scan is in: a secret left in a report still fails the run. */
export function finalExitCode(written: WrittenReports): number {
  const { exitCode } = written.summary;
  return written.lateFindings.length > 0 && exitCode === CI_EXIT.passed ? CI_EXIT.failed : exitCode;
}
