import { StepDefinitionError } from '../errors/index.js';
import { findModule, moduleNames } from '../modules/registry.js';
import { renderString } from '../template/index.js';
import { LocalTransport } from '../transport/local/index.js';
import type { Transport } from '../transport/types.js';
import { type InventoryHost, nodeAddressOf } from '../types/inventory.js';
import type { ModuleRunResult } from '../types/module-outcome.js';
import type { StepExecutor, StepRequest } from '../types/step.js';
import { executeTask, outcomeOfWhen, type TaskOutcome } from './execute-task.js';
import { delegateHostNamed, IMPLICIT_LOCALHOST } from './implicit-localhost.js';
import { taskForPlanStep } from './plan-step.js';
import type { Task } from './types.js';
import { mergeVars } from './vars.js';

/**
 * Where a delegated step runs: another plan host through the engine's pool, or this machine when
 * the name is one of its names and the plan has no host of that name (Ansible's implicit
 * localhost; the rule `kubemix run` follows too: delegateHostNamed).
 */
async function delegateTarget(
  request: StepRequest,
  delegateTo: string | undefined,
  vars: Record<string, unknown>,
  localhost: LocalTransport,
): Promise<{ host: InventoryHost; transport: Transport } | undefined> {
  if (delegateTo === undefined) return undefined;
  const name = renderString(delegateTo, vars);
  if (name === request.host.name) return undefined;
  const delegate = delegateHostNamed(name, (named) => request.plan.hosts.find((h) => h.name === named));
  if (delegate !== IMPLICIT_LOCALHOST) return request.delegate(name);
  // The step's own host with this machine's connection: a plan step's modules read the host
  // they work for (its vars, role) while running here.
  const { address, connection, os } = IMPLICIT_LOCALHOST;
  return {
    host: { ...request.host, name: IMPLICIT_LOCALHOST.name, address, connection, os },
    transport: localhost,
  };
}

/** Runs a step's task on its host, or on its delegate_to host. */
async function runStep(
  request: StepRequest,
  task: Task,
  vars: Record<string, unknown>,
  localhost: LocalTransport,
): Promise<TaskOutcome> {
  const target = await delegateTarget(request, task.delegateTo, vars, localhost);
  return executeTask({
    task,
    host: request.host,
    transport: target?.transport ?? request.transport,
    vars,
    ...(target ? { delegateHost: target.host } : {}),
    signal: request.signal,
    onOutput: request.onOutput,
    onProgress: request.onProgress,
    onRetry: request.onRetry,
    ...(request.ledger ? { ledger: request.ledger } : {}),
  });
}

/** Ansible's magic variables for a plan step: the task's hosts are the play's hosts. */
function magicVariables({ plan, task, host }: StepRequest): Record<string, unknown> {
  const groups: Record<string, string[]> = { all: plan.hosts.map((h) => h.name) };
  for (const h of plan.hosts) groups[h.group] = [...(groups[h.group] ?? []), h.name];
  return {
    inventory_hostname: host.name,
    inventory_hostname_short: host.name.split('.')[0],
    ansible_host: host.address,
    // The address the cluster uses for the node (kubelet node IP, advertise address): on EC2 the
    // private one, while ansible_host may be the public address kubemix connects to.
    kubemix_node_address: nodeAddressOf(host),
    ansible_os_family: host.os === 'windows' ? 'Windows' : 'Linux',
    group_names: [host.group],
    groups,
    ansible_play_hosts_all: task.hosts,
    ansible_play_hosts: task.hosts,
    ansible_play_batch: task.hosts,
  };
}

/**
 * Runs cluster plan steps through the playbook task executor, so the cluster playbooks get the
 * same keywords (when, loop, until, changed_when, become, ...) as `kubemix run`, and every step
 * its attempts in the same loop (runWithRetries), which reports each retry through the request.
 *
 * Scope of a step: plan vars, host vars, Ansible's magic variables, `outputs` (what earlier
 * tasks registered, persisted in the state so it survives a resume), then what earlier steps of
 * this run registered or set_fact'ed on the same host (in memory, as in Ansible: a `register`
 * is usable by the next steps as `name.stdout`, `name.rc`, ...).
 */
export function createPlaybookStepExecutor(): StepExecutor {
  const hostScopes = new Map<string, Record<string, unknown>>();
  const localhost = new LocalTransport(IMPLICIT_LOCALHOST.name);

  return async (request: StepRequest): Promise<ModuleRunResult> => {
    const { step, host } = request;
    if (!findModule(step.module)) {
      throw new StepDefinitionError(`unknown module "${step.module}" (known: ${moduleNames().join(', ')})`);
    }
    const task = taskForPlanStep(step);
    const context = request.vars as { vars?: Record<string, unknown>; outputs?: Record<string, unknown> };
    const registered = hostScopes.get(host.name) ?? {};
    const vars = mergeVars([
      { values: context.vars ?? {}, templated: true },
      {
        values: {
          ...magicVariables(request),
          outputs: context.outputs ?? {},
        },
      },
      { values: registered },
      // The task's own `vars:` win, as in Ansible.
      { values: task.vars, templated: true },
    ]);
    // `when` first, as Ansible: a skipped step never connects to its delegate_to host.
    const outcome = outcomeOfWhen(task, host.name, vars) ?? (await runStep(request, task, vars, localhost));
    if (outcome.unreachable && outcome.failed) {
      // Same as a lost connection in any other step: a failed result the engine reports by host.
      return {
        changed: false,
        failed: true,
        msg: outcome.msg ?? 'host unreachable',
        results: outcome.results,
      };
    }
    // As in Ansible, what a run_once step registers or sets is visible on every host of the task.
    for (const name of step.runOnce ? request.task.hosts : [host.name]) {
      const scope = { ...hostScopes.get(name), ...outcome.facts };
      if (task.register) scope[task.register] = outcome.registered;
      hostScopes.set(name, scope);
    }
    const result: ModuleRunResult = {
      changed: outcome.changed,
      failed: outcome.failed,
      data: outcome.registered,
      results: outcome.results.length > 0 ? outcome.results : [outcome.lastResult],
      rebootRequired: outcome.rebootRequired,
    };
    if (outcome.msg !== undefined) result.msg = outcome.msg;
    if (outcome.skipped) result.skipped = true;
    if (outcome.failed && outcome.registered['input_error'] === true) result.inputError = true;
    return result;
  };
}
