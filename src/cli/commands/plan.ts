import { readState } from '../../engine/index.js';
import { EXIT } from '../../errors/index.js';
import { hostsConnectedBy } from '../../plan/credential-check.js';
import { formatPlan } from '../../plan/index.js';
import { loadClusterContext, withRecordedHosts } from '../cluster-context.js';
import { warnUnusableCredentials } from '../credential-findings.js';
import {
  choiceOption,
  onePositional,
  parseCommandArgs,
  SHORT_FORM_HELP,
  SHORT_FORM_OPTIONS,
} from '../options.js';
import { out } from '../output.js';
import { contextVersionsReport, versionsText } from './versions.js';

export const planHelp = `Usage: kubemix plan <spec> [options]

Print the task graph \`kubemix up\` would run, per host, without touching anything.
<spec> is a YAML cluster spec or a Kubeinit short form such as k8s-libvirt-1-1-1.

Options:
  --down                     show the teardown plan (\`kubemix down\`) instead
  -o, --output text|json     output format (default text)
  --cluster-dir DIR          the cluster directory whose state (hosts, resources) to show against
${SHORT_FORM_HELP}`;

export async function planCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs('plan', argv, {
    ...SHORT_FORM_OPTIONS,
    down: { type: 'boolean' },
    output: { type: 'string', short: 'o' },
    'cluster-dir': { type: 'string' },
  });
  if (values.help) {
    out(planHelp);
    return EXIT.ok;
  }
  const format = choiceOption('output', values.output, ['text', 'json'] as const) ?? 'text';
  const context = await loadClusterContext(onePositional('plan', positionals, 'spec'), values);
  // What `up` and `down` would do now: the state's hosts and recorded resources, when there are some.
  const state = await readState(context.clusterDir);
  const plan = values.down ? context.downPlan(state) : withRecordedHosts(context.upPlan(), state);
  // What up would refuse, as warnings: the plan may be made on another machine than the build.
  warnUnusableCredentials(hostsConnectedBy(plan));
  if (format === 'json') out(JSON.stringify(plan, null, 2));
  else if (values.down) out(formatPlan(plan));
  // What `up` installs comes first: the versions, then the tasks that install them.
  else out(`${versionsText(contextVersionsReport(context))}\n\n${formatPlan(plan)}`);
  return EXIT.ok;
}
