import { refuseUnusableCredentials } from '../../cluster/index.js';
import { readState } from '../../engine/index.js';
import { EXIT, KubemixError } from '../../errors/index.js';
import { hostsConnectedBy } from '../../plan/credential-check.js';
import { clusterFromFlags } from '../cluster-flags.js';
import {
  choiceOption,
  onePositional,
  parseCommandArgs,
  SHORT_FORM_HELP,
  SHORT_FORM_OPTIONS,
} from '../options.js';
import { out } from '../output.js';
import { runPlanWithRenderers } from '../run-plan-command.js';
import { reportVerifyChecks } from '../verify-report.js';
import { specArguments } from './run-command-args.js';

export const verifyHelp = `Usage: kubemix verify <spec> [options]

Check a built cluster: deploy the workloads it can run (agnhost netexec, the server of
Kubernetes' own network tests, on the Linux workers or else the controllers; with Windows
workers also win-webserver, the Kubernetes Windows guide's), then node-to-pod, pod-to-pod
(Linux <-> Windows both ways when both exist), service VIP, service DNS name, NodePort and
outbound checks, each across every workload. Prints a table and writes verify.json to the
cluster directory. Exit code 0 when every check passed, 1 otherwise.

Options:
  --cluster-dir DIR          the cluster directory (default: derived from the spec's name)
  --log-format text|json     plain lines or one JSON event per line
${SHORT_FORM_HELP}`;

export async function verifyCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs('verify', argv, {
    ...SHORT_FORM_OPTIONS,
    'cluster-dir': { type: 'string' },
    'log-format': { type: 'string' },
  });
  if (values.help) {
    out(verifyHelp);
    return EXIT.ok;
  }
  const logFormat = choiceOption('log-format', values['log-format'], ['text', 'json'] as const) ?? 'text';
  const specArgument = onePositional('verify', positionals, 'spec');
  const context = await clusterFromFlags(specArgument, values);
  const plan = context.upPlan();
  refuseUnusableCredentials(hostsConnectedBy(plan, ['verify']));
  const verify = plan.tasks.find((t) => t.name === 'verify');
  const state = await readState(context.clusterDir);
  const missing = (verify?.needs ?? []).filter((name) => state?.tasks[name]?.status !== 'done');
  if (missing.length > 0) {
    throw new KubemixError(
      `cluster ${context.spec.name} is not built yet (not done: ${missing.join(', ')}); run kubemix up first`,
    );
  }
  const code = await runPlanWithRenderers(plan, context.clusterDir, {
    logFormat,
    from: 'verify',
    stopAfter: 'verify',
    resumeCommand: () => ['kubemix', 'verify', ...specArguments(specArgument, values)].join(' '),
  });
  if (logFormat === 'text') await reportVerifyChecks(plan, context.clusterDir);
  return code;
}
