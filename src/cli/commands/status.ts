import { existsSync } from 'node:fs';
import { readState } from '../../engine/index.js';
import { UsageError } from '../../errors/index.js';
import { topologicalOrder } from '../../plan/index.js';
import { loadClusterContext } from '../cluster-context.js';
import { choiceOption, parseCommandArgs, SHORT_FORM_HELP, SHORT_FORM_OPTIONS } from '../options.js';
import { out } from '../output.js';
import { providerStatus } from '../provider-status.js';

export const statusHelp = `Usage: kubemix status <spec> [options]

Show what the last run of \`kubemix up\` did: each task's state, the hosts, how the run ended;
for machines kubemix created, every resource the state recorded and whether it exists now.

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
  const context = await loadClusterContext(positionals[0]!, values);
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
  const plan = context.upPlan();
  const width = Math.max(...plan.tasks.map((t) => t.name.length));
  out(`cluster ${context.spec.name} (${context.clusterDir})`);
  if (state.lastRun)
    out(
      `last run: ${state.lastRun.status}${state.lastRun.failedTask ? ` at ${state.lastRun.failedTask}` : ''}${state.lastRun.message ? `: ${state.lastRun.message}` : ''}`,
    );
  for (const task of topologicalOrder(plan.tasks)) {
    const record = state.tasks[task.name];
    out(
      `  ${task.name.padEnd(width)}  ${record?.status ?? 'pending'}${record?.finishedAt ? `  ${record.finishedAt}` : ''}`,
    );
  }
  out('hosts:');
  for (const host of state.inventory)
    out(`  ${host.name}  ${host.address || '(no address yet)'}  ${host.role}  ${host.os}`);
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
      out(`  ${r.location}  ${r.kind} ${r.name}  ${recorded}  ${exists}`);
    }
  }
  return 0;
}
