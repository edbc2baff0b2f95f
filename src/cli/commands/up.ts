import { TASK_NAMES } from '../../types/plan.js';
import { loadClusterContext } from '../cluster-context.js';
import {
  choiceOption,
  intOption,
  onePositional,
  parseCommandArgs,
  SHORT_FORM_HELP,
  SHORT_FORM_OPTIONS,
} from '../options.js';
import { out } from '../output.js';
import { runPlanWithRenderers } from '../run-plan-command.js';
import { reportVerifyChecks } from '../verify-report.js';

export const RUN_OPTIONS = {
  'cluster-dir': { type: 'string' },
  forks: { type: 'string', short: 'f' },
  'log-format': { type: 'string' },
} as const;

export const RUN_HELP = `  --cluster-dir DIR          where state, logs and kubeconfig live
                             (default: $KUBEMIX_HOME or ~/.kubemix, then clusters/<name>)
  -f, --forks N              at most N hosts work at once (default 10)
  --log-format text|json     plain lines, or one JSON event per line (default: a live task
                             list on a terminal, plain lines otherwise or when CI is set)`;

export const upHelp = `Usage: kubemix up <spec> [options]

Build the cluster: run the plan (see \`kubemix plan\`). A second run resumes after the last
completed task. Ctrl-C stops the running steps and records state.

Tasks: ${TASK_NAMES.filter((t) => t !== 'cleanup').join(', ')}

Options:
  --stop-after TASK          stop once TASK (and what it needs) is done
  --stop-before TASK         stop before TASK starts
  --from TASK                redo TASK and everything after it
${RUN_HELP}
${SHORT_FORM_HELP}`;

export async function upCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs('up', argv, {
    ...SHORT_FORM_OPTIONS,
    ...RUN_OPTIONS,
    'stop-after': { type: 'string' },
    'stop-before': { type: 'string' },
    from: { type: 'string' },
  });
  if (values.help) {
    out(upHelp);
    return 0;
  }
  const forks = intOption('forks', values.forks, { min: 1 });
  const logFormat = choiceOption('log-format', values['log-format'], ['text', 'json'] as const) ?? 'text';
  const context = await loadClusterContext(onePositional('up', positionals, 'spec'), values);
  await context.ensureClusterKey();
  const plan = context.upPlan();
  const code = await runPlanWithRenderers(plan, context.clusterDir, {
    logFormat,
    ...(forks !== undefined ? { forks } : {}),
    ...(values['stop-after'] !== undefined ? { stopAfter: values['stop-after'] } : {}),
    ...(values['stop-before'] !== undefined ? { stopBefore: values['stop-before'] } : {}),
    ...(values.from !== undefined ? { from: values.from } : {}),
  });
  if (logFormat === 'text') await reportVerifyChecks(plan, context.clusterDir);
  return code;
}
