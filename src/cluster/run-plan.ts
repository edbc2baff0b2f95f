import { runPlan } from '../engine/run-plan.js';
import type { RunPlanOptions, RunSummary } from '../engine/types.js';
import { createPlaybookStepExecutor } from '../playbook/step-executor.js';

/** Options of {@link runClusterPlan}: the engine's, less the step executor, which is always the same. */
export type ClusterRunOptions = Omit<RunPlanOptions, 'executeStep'>;

/**
 * Runs a cluster plan the way `up`, `down`, `verify` and `ci` do: the engine schedules tasks and
 * hosts, and each step runs through the playbook task executor, so a cluster playbook's steps
 * get the same keywords (when, loop, until, changed_when, become, ...) as `kubemix run`. The
 * engine sits below the playbook layer and cannot import it; this is the one place that joins
 * them, so there is one step path. A fresh executor per run: it keeps what each host registered
 * during the run.
 */
export function runClusterPlan(options: ClusterRunOptions): Promise<RunSummary> {
  return runPlan({ ...options, executeStep: createPlaybookStepExecutor() });
}
