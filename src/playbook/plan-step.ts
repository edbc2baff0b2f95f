import type { HostOs } from '../types/inventory.js';
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
  if (step.throttle !== undefined) task.throttle = step.throttle;
  return task;
}

/**
 * A playbook task as a cluster plan step. The engine owns what it does for every step (run_once,
 * no_log as a secret output, register into the state's outputs, ignore_errors, the per-attempt
 * time limit, throttle across the task's hosts); everything else (when, loop, retries/until,
 * changed_when, become, ...) stays in `keywords` for executeTask, exactly as written.
 */
export function planStepFromTask(task: Task, os?: HostOs): PlanStep {
  const { name, module, args, register, noLog, runOnce, ignoreErrors, timeoutMs, throttle, ...keywords } =
    task;
  const step: PlanStep = { name, module, args, keywords: keywords as unknown as Record<string, unknown> };
  if (register !== undefined) step.register = register;
  if (noLog) step.secret = true;
  if (runOnce) step.runOnce = true;
  if (ignoreErrors) step.ignoreErrors = true;
  if (timeoutMs !== undefined) step.timeoutMs = timeoutMs;
  if (throttle !== undefined) step.throttle = throttle;
  if (os !== undefined) step.os = os;
  return step;
}

/** The playbook task executeTask runs for a plan step (the engine's own keywords left out). */
export function taskForPlanStep(step: PlanStep): Task {
  if (step.keywords === undefined) {
    // A step built in code: the engine already retries it, so executeTask must not retry again.
    const {
      retries: _retries,
      delay: _delay,
      runOnce: _runOnce,
      ignoreErrors: _ignore,
      noLog: _noLog,
      timeoutMs: _t,
      throttle: _throttle,
      ...task
    } = taskFromPlanStep(step);
    return task;
  }
  // Steps built in code may carry only the keywords they need (e.g. changed_when): fill the rest.
  const task: Task = {
    loopVar: 'item',
    notify: [],
    listen: [],
    tags: [],
    vars: {},
    ...(step.keywords as unknown as Partial<Task>),
    name: step.name,
    module: step.module,
    args: step.args,
  };
  // Register and no_log matter inside the task too: loop results are gathered under the name,
  // and no_log hides output from executeTask's own messages.
  if (step.register !== undefined) task.register = step.register;
  if (step.secret) task.noLog = true;
  return task;
}
