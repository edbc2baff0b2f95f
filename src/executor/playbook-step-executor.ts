import { LocalTransport } from '../transport/local/index.js';
import type { StepExecutor, StepRequest } from '../engine/types.js';
import { StepDefinitionError } from '../engine/module-step-executor.js';
import { findModule, moduleNames } from '../modules/registry.js';
import { executeTask } from '../playbook/execute-task.js';
import { taskForPlanStep } from '../playbook/plan-step.js';
import { mergeVars } from '../playbook/vars.js';
import type { ModuleRunResult } from './run-module.js';

/**
 * Runs cluster plan steps through the playbook task executor, so the cluster playbooks get the
 * same keywords (when, loop, until, changed_when, become, ...) as `kubemix run`.
 *
 * Scope of a step: plan vars, host vars, Ansible's magic variables, `outputs` (what earlier
 * tasks registered, persisted in the state so it survives a resume), then what earlier steps of
 * this run registered or set_fact'ed on the same host (in memory, as in Ansible: a `register`
 * is usable by the next steps as `name.stdout`, `name.rc`, ...).
 */
export function createPlaybookStepExecutor(): StepExecutor {
  const hostScopes = new Map<string, Record<string, unknown>>();
  const localhost = new LocalTransport('localhost');

  return async (request: StepRequest): Promise<ModuleRunResult> => {
    const { step, host } = request;
    if (!findModule(step.module)) {
      throw new StepDefinitionError(`unknown module "${step.module}" (known: ${moduleNames().join(', ')})`);
    }
    const task = taskForPlanStep(step);
    if (task.delegateTo !== undefined && task.delegateTo !== 'localhost') {
      throw new StepDefinitionError(`delegate_to "${task.delegateTo}": cluster playbooks may only delegate to localhost`);
    }
    const context = request.vars as { vars?: Record<string, unknown>; outputs?: Record<string, unknown> };
    const registered = hostScopes.get(host.name) ?? {};
    const vars = mergeVars([
      { values: context.vars ?? {}, templated: true },
      {
        values: {
          inventory_hostname: host.name,
          ansible_host: host.address,
          ansible_os_family: host.os === 'windows' ? 'Windows' : 'Linux',
          group_names: [host.group],
          outputs: context.outputs ?? {},
        },
      },
      { values: registered },
    ]);
    const outcome = await executeTask({
      task,
      host,
      transport: task.delegateTo === 'localhost' ? localhost : request.transport,
      vars,
      ...(task.delegateTo === 'localhost' ? { delegateHost: { ...host, name: 'localhost', connection: 'local' as const } } : {}),
      signal: request.signal,
      onOutput: request.onOutput,
      ...(request.timeoutMs === undefined ? {} : { timeoutMs: request.timeoutMs }),
    });
    if (outcome.unreachable && outcome.failed) {
      // Same as a lost connection in any other step: a failed result the engine reports by host.
      return { changed: false, failed: true, msg: outcome.msg ?? 'host unreachable', results: outcome.results };
    }
    const scope = { ...registered, ...outcome.facts };
    if (task.register) scope[task.register] = outcome.registered;
    hostScopes.set(host.name, scope);
    const result: ModuleRunResult = {
      changed: outcome.changed,
      failed: outcome.failed,
      data: outcome.registered,
      results: outcome.results.length > 0 ? outcome.results : [outcome.lastResult],
      rebootRequired: outcome.rebootRequired,
    };
    if (outcome.msg !== undefined) result.msg = outcome.msg;
    return result;
  };
}
