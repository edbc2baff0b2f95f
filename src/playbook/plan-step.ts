import type { PlanStep } from '../types/plan.js';
import type { Task } from './types.js';

/**
 * A cluster plan step as a playbook task, so the engine can run it through executeTask:
 * retries without `until` retry failures, with the delay doubling each attempt.
 */
export function taskFromPlanStep(step: PlanStep): Task {
  const task: Task = {
    name: step.name,
    module: step.module,
    args: step.args,
    loopVar: 'item',
    notify: [],
    listen: [],
    tags: [],
    vars: {},
    backoff: 2,
  };
  if (step.retries !== undefined) task.retries = step.retries;
  if (step.delayMs !== undefined) task.delay = step.delayMs / 1000;
  if (step.timeoutMs !== undefined) task.timeoutMs = step.timeoutMs;
  if (step.register !== undefined) task.register = step.register;
  if (step.secret) task.noLog = true;
  if (step.runOnce) task.runOnce = true;
  if (step.ignoreErrors) task.ignoreErrors = true;
  return task;
}
