import { loadArtifactsFile } from '../../artifacts/list.js';
import type { ClusterContext } from '../../cluster/index.js';
import { EXIT } from '../../errors/index.js';
import { WINDOWS_VERSIONS, type WindowsVersion } from '../../types/windows.js';
import { loadVersions, type Versions } from '../../versions/versions.js';
import { clusterFromFlags } from '../cluster-flags.js';
import {
  choiceOption,
  onePositional,
  parseCommandArgs,
  SHORT_FORM_HELP,
  SHORT_FORM_OPTIONS,
} from '../options.js';
import { out } from '../output.js';
import { wrapText } from '../render/fit-table.js';
import { terminalWidth } from '../render/terminal-width.js';
import { type MatrixRow, matrixMarkdown, matrixText, supportLine, versionMatrix } from '../version-matrix.js';

export const versionsHelp = `Usage: kubemix versions [spec] [options]

Print every component a cluster gets, its version or pinned commit, where it is installed and
where it comes from: the pins of playbooks/versions.yaml with the spec's \`versions:\` overrides
(without a spec: the defaults, with a Server Core image per supported Windows Server version).

The text table fits the terminal's width (else $COLUMNS, else 100 columns): long cells wrap
within their column.

Options:
  -o, --output text|json|markdown   output format (default text)
${SHORT_FORM_HELP}`;

/** The matrix of a spec, or of the defaults when no spec is given. */
export interface VersionsReport {
  kubernetes: string;
  support: string;
  components: MatrixRow[];
}

/** Builds the report from resolved versions (the same rows `plan` prints). */
export function versionsReport(
  versions: Versions,
  kubernetesVersion: string,
  windowsVersions: readonly WindowsVersion[],
): VersionsReport {
  const minor = kubernetesVersion.replace(/^v/, '').split('.').slice(0, 2).join('.');
  const kubeadmImages = loadArtifactsFile()['kubeadm-images'][minor];
  return {
    kubernetes: kubernetesVersion,
    support: supportLine(kubernetesVersion),
    components: versionMatrix({
      versions,
      kubernetesVersion,
      windowsVersions,
      ...(kubeadmImages ? { kubeadmImages } : {}),
    }),
  };
}

/** The report of a loaded spec: its Kubernetes version, pins and Windows Server versions. */
export function contextVersionsReport(context: ClusterContext): VersionsReport {
  const windows = context.spec.nodes.workers
    .filter((g) => g.os === 'windows' && g.count > 0)
    .map((g) => g.windowsVersion ?? '2022');
  const kubernetes = context.spec.kubernetes.version ?? context.versions['kubernetes'] ?? '';
  return versionsReport(
    context.versions,
    kubernetes.replace(/^v/, ''),
    WINDOWS_VERSIONS.filter((v) => windows.includes(v)),
  );
}

/** The line above the table: the Kubernetes version and the supported range (`plan`'s headline too). */
export const versionsHeadline = (report: VersionsReport) =>
  `Kubernetes ${report.kubernetes} (${report.support})`;

/** The report as `versions` and `plan --detail` print it in text, every line at most `width` wide. */
export const versionsText = (report: VersionsReport, width: number) =>
  `${wrapText(versionsHeadline(report), width).join('\n')}\n\n${matrixText(report.components, width)}`;

export async function versionsCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs('versions', argv, {
    ...SHORT_FORM_OPTIONS,
    output: { type: 'string', short: 'o' },
  });
  if (values.help) {
    out(versionsHelp);
    return EXIT.ok;
  }
  const format = choiceOption('output', values.output, ['text', 'json', 'markdown'] as const) ?? 'text';
  let report: VersionsReport;
  if (positionals.length === 0) {
    const versions = loadVersions();
    report = versionsReport(versions, versions['kubernetes'] ?? '', WINDOWS_VERSIONS);
  } else {
    report = contextVersionsReport(
      await clusterFromFlags(onePositional('versions', positionals, 'spec'), values),
    );
  }
  if (format === 'json') out(JSON.stringify(report, null, 2));
  else if (format === 'markdown') out(`${versionsHeadline(report)}\n\n${matrixMarkdown(report.components)}`);
  else out(versionsText(report, terminalWidth()));
  return EXIT.ok;
}
