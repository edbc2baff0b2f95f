import { stringify } from 'yaml';
// Each from its own file, not the packages' index files: those load the engine, the transports and
// every module implementation, which planning never runs (#25: start-up).
import { unusableCredentialWarnings } from '../../cluster/credentials.js';
import { withRecordedHosts } from '../../cluster/recorded-hosts.js';
import { readState } from '../../engine/state.js';
import { EXIT, UsageError } from '../../errors/index.js';
import { hostsConnectedBy } from '../../plan/credential-check.js';
import { formatPlan } from '../../plan/index.js';
import { clusterFromFlags } from '../cluster-flags.js';
import {
  choiceOption,
  onePositional,
  parseCommandArgs,
  SHORT_FORM_HELP,
  SHORT_FORM_OPTIONS,
} from '../options.js';
import { err, out } from '../output.js';
import { formatPlanLists } from '../plan-lists.js';
import { formatPlanSummary } from '../plan-summary.js';
import { terminalWidth } from '../render/terminal-width.js';
import { contextVersionsReport, versionsHeadline, versionsText } from './versions.js';

export const planHelp = `Usage: kubemix plan <spec> [options]

Show what \`kubemix up\` would do, without touching anything.
<spec> is a YAML cluster spec or a Kubeinit short form such as k8s-libvirt-1-1-1.

By default a summary: the hosts and how they are reached, the tasks in order with the hosts each
runs on and what it waits for, and the values only the run decides (addresses, earlier tasks'
outputs), fitted to the terminal's width (else $COLUMNS, else 100 columns).

Options:
  --down                        the teardown plan (\`kubemix down\`) instead
  --detail                      everything: the versions table, then every step with its
                                arguments (lines as long as the arguments)
  --list-tasks                  each task with its steps, in run order (ansible-playbook's
                                --list-tasks); with --down, the teardown's
  --list-hosts                  each task with its hosts (ansible-playbook's --list-hosts)
  -o, --output text|json|yaml   output format (default text); json and yaml are the whole plan
  --cluster-dir DIR             the cluster directory whose state (hosts, resources) to show against
${SHORT_FORM_HELP}`;

const PLAN_OPTIONS = {
  ...SHORT_FORM_OPTIONS,
  down: { type: 'boolean' },
  detail: { type: 'boolean' },
  'list-tasks': { type: 'boolean' },
  'list-hosts': { type: 'boolean' },
  output: { type: 'string', short: 'o' },
  'cluster-dir': { type: 'string' },
} as const;

/** The text mode asked for; a list or --detail with data output, or --detail with a list, is refused. */
function textMode(
  values: { detail?: boolean; 'list-tasks'?: boolean; 'list-hosts'?: boolean },
  format: string,
) {
  const lists = values['list-tasks'] || values['list-hosts'];
  const given = [
    values.detail && '--detail',
    values['list-tasks'] && '--list-tasks',
    values['list-hosts'] && '--list-hosts',
  ];
  const text = given.filter((g): g is string => typeof g === 'string');
  if (format !== 'text' && text.length > 0)
    throw new UsageError(`kubemix plan: ${text[0]} is text output and cannot be combined with -o ${format}`);
  if (values.detail && lists)
    throw new UsageError(
      `kubemix plan: --detail cannot be combined with ${text[1]} (--list-* are their own lists)`,
    );
  return values.detail ? 'detail' : lists ? 'lists' : 'summary';
}

export async function planCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs('plan', argv, PLAN_OPTIONS);
  if (values.help) {
    out(planHelp);
    return EXIT.ok;
  }
  const format = choiceOption('output', values.output, ['text', 'json', 'yaml'] as const) ?? 'text';
  const mode = textMode(values, format);
  const spec = onePositional('plan', positionals, 'spec');
  const context = await clusterFromFlags(spec, values);
  // What `up` and `down` would do now: the state's hosts and recorded resources, when there are some.
  const state = await readState(context.clusterDir);
  const plan = values.down ? context.downPlan(state) : withRecordedHosts(context.upPlan(), state);
  // What up would refuse, as warnings: the plan may be made on another machine than the build.
  for (const warning of unusableCredentialWarnings(hostsConnectedBy(plan)))
    err(`kubemix: warning: ${warning}`);
  const width = terminalWidth();
  if (format === 'json') out(JSON.stringify(plan, null, 2));
  else if (format === 'yaml') out(stringify(plan, { aliasDuplicateObjects: false }));
  else if (mode === 'lists')
    out(
      formatPlanLists(plan, {
        command: values.down ? 'down' : 'up',
        tasks: values['list-tasks'] === true,
        hosts: values['list-hosts'] === true,
        width,
      }),
    );
  else if (mode === 'detail')
    // What `up` installs comes first: the versions, then the tasks that install them.
    out(
      values.down
        ? formatPlan(plan)
        : `${versionsText(contextVersionsReport(context), width)}\n\n${formatPlan(plan)}`,
    );
  else {
    const shortForm = Object.keys(SHORT_FORM_OPTIONS).some((name) => name in values);
    const more = `kubemix plan ${spec}${values.down ? ' --down' : ''} --detail: every step with its arguments; -o json|yaml: the data`;
    const headline = values.down
      ? []
      : [
          versionsHeadline(contextVersionsReport(context)),
          `Components: kubemix versions ${spec}${shortForm ? ' with the same options' : ''}`,
        ];
    out(formatPlanSummary(plan, { width, headline, more }));
  }
  return EXIT.ok;
}
