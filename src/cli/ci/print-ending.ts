import { join } from 'node:path';
import { CI_EXIT } from '../../ci/build-summary.js';
import { formatDuration } from '../../ci/html.js';
import type { WrittenReports } from '../../ci/write-reports.js';
import { err, out } from '../output.js';

/**
 * The last lines of `kubemix ci`: the outcome and where the reports are; secrets the scan found;
 * and, when the teardown failed, a banner on stderr (plus a GitHub Actions error annotation under
 * Actions) that nobody scrolling past the log can miss: leftovers cost money and disk.
 */
export function printEnding(options: {
  written: WrittenReports;
  code: number;
  outDir: string;
  specWords: string[];
  logFormat: 'text' | 'json';
}): void {
  const { summary, lateFindings } = options.written;
  const say = options.logFormat === 'json' ? err : out;
  const findings = [...summary.secretScan.findings, ...lateFindings];
  if (findings.length > 0) {
    err(
      `kubemix ci: the secret scan found ${findings.length} secret(s) in ${options.outDir} and redacted them:`,
    );
    for (const f of findings) err(`  ${f.file}:${f.line}: ${f.kind}`);
  }
  say(
    `\nkubemix ci: ${summary.outcome.toUpperCase()} in ${formatDuration(summary.durationMs)} (exit code ${options.code})${summary.message ? `: ${summary.message}` : ''}`,
  );
  say(`  report:  ${join(options.outDir, 'report.html')}`);
  say(`  junit:   ${join(options.outDir, 'junit.xml')}`);
  say(`  summary: ${join(options.outDir, 'summary.json')}`);
  if (options.code !== CI_EXIT.teardownFailed) return;
  const banner = '!'.repeat(78);
  err(`\n${banner}`);
  err(`!! TEARDOWN FAILED: ${summary.teardown.message}`);
  err('!! Machines, networks or cluster state may be left behind (cost on EC2, disk on hypervisors).');
  err(`!! Clean up: kubemix down ${options.specWords.join(' ')}`);
  err(banner);
  if (process.env['GITHUB_ACTIONS'] === 'true')
    err(`::error title=kubemix ci: teardown failed::${summary.teardown.message.replace(/\r?\n/g, ' ')}`);
}
