import { existsSync } from 'node:fs';
import type { ClusterContext } from '../../cluster/index.js';
import { type ClusterState, readState } from '../../engine/state.js';
import { UsageError } from '../../errors/index.js';
import { topologicalOrder } from '../../plan/index.js';
import { clusterFromFlags } from '../cluster-flags.js';
import { lastRunLine } from '../last-run-line.js';
import { choiceOption, parseCommandArgs, SHORT_FORM_HELP, SHORT_FORM_OPTIONS } from '../options.js';
import { out } from '../output.js';
import { providerStatus, type ResourceStatusLine } from '../provider-status.js';

export const statusHelp = `Usage: kubemix status <spec> [options]

Show what the last run of \`kubemix up\` did: each task's state, the hosts, how the run ended;
for machines kubemix created, every resource the state recorded (with its id) and whether it
exists now. After \`kubemix down\`: when the cluster was torn down, how its last build ended, and
the event logs of both runs.

Options:
  --cluster-dir DIR          the cluster directory (default: derived from the spec's name)
  -o, --output text|json     output format (default text)
${SHORT_FORM_HELP}`;

export async function statusCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs('status', argv, {
    ...SHORT_FORM_OPTIONS,
    'cluster-dir': { type: 'string' },
    output: { type: 'string', short: 'o' },
  });
  if (values.help) {
    out(statusHelp);
    return 0;
  }
  const format = choiceOption('output', values.output, ['text', 'json'] as const) ?? 'text';
  if (positionals.length !== 1)
    throw new UsageError('kubemix status: give the cluster spec (see kubemix status --help)');
  const context = await clusterFromFlags(positionals[0]!, values);
  if (!existsSync(context.clusterDir)) {
    out(`cluster ${context.spec.name}: never built (no ${context.clusterDir})`);
    return 0;
  }
  const state = await readState(context.clusterDir);
  if (format === 'json') {
    const resources = state ? await providerStatus(context.spec, state.resources, context) : [];
    out(JSON.stringify(state ? { ...state, resourceStatus: resources } : null, null, 2));
    return 0;
  }
  if (!state) {
    out(`cluster ${context.spec.name}: no state in ${context.clusterDir}`);
    return 0;
  }
  out(`cluster ${context.spec.name} (${context.clusterDir})`);
  if (state.tornDown) {
    printTornDown(state);
    await printResources(context, state);
    return 0;
  }
  const plan = context.upPlan();
  const width = Math.max(...plan.tasks.map((t) => t.name.length));
  if (state.lastRun) out(lastRunLine(state.lastRun));
  for (const task of topologicalOrder(plan.tasks)) {
    const record = state.tasks[task.name];
    out(
      `  ${task.name.padEnd(width)}  ${record?.status ?? 'pending'}${record?.finishedAt ? `  ${record.finishedAt}` : ''}`,
    );
  }
  out('hosts:');
  for (const host of state.inventory)
    out(`  ${host.name}  ${host.address || '(no address yet)'}  ${host.role}  ${host.os}`);
  await printResources(context, state);
  return 0;
}

/** A torn-down cluster: when, how its last build had ended, and where both runs' event logs are. */
function printTornDown(state: ClusterState): void {
  const { tornDown, lastRun } = state;
  if (!tornDown) return;
  out(`torn down at ${tornDown.at} (kubemix down); the next kubemix up builds it again`);
  if (lastRun)
    out(
      `last build: ${lastRun.status}${lastRun.failedTask ? ` at ${lastRun.failedTask}` : ''}, started ${lastRun.startedAt}${lastRun.finishedAt ? `, ended ${lastRun.finishedAt}` : ''}`,
    );
  out('event logs:');
  if (tornDown.buildEventLog) out(`  build     ${tornDown.buildEventLog}`);
  out(`  teardown  ${tornDown.eventLog}`);
}

/** Every resource the state recorded and whether it exists now (machines kubemix created). */
async function printResources(context: ClusterContext, state: ClusterState): Promise<void> {
  const resources = await providerStatus(context.spec, state.resources, context);
  if (resources.length > 0) {
    out('resources:');
    for (const r of resources) {
      if (r.kind === 'also') {
        out(`  ${r.location}  also ${r.name} (${r.note})`);
        continue;
      }
      const exists =
        r.exists === 'unknown' ? `unknown (${r.note ?? 'not asked'})` : r.exists ? 'exists' : 'gone';
      const recorded = r.recorded ? `recorded ${r.recorded}` : 'NOT RECORDED';
      out(`  ${r.location}  ${resourceName(r)}  ${recorded}  ${exists}`);
    }
  }
}

/**
 * `kind name id`; a resource recorded under its role (EC2's network: kind = name = `vpc`) shows
 * `kind id`, so every line names something the provider's console can find.
 */
function resourceName(r: ResourceStatusLine): string {
  const name = r.name === r.kind && r.id ? '' : ` ${r.name}`;
  return `${r.kind}${name}${r.id ? ` ${r.id}` : ''}`;
}
