import type { HostOs } from '../types/inventory.js';
import type { PlanStep } from '../types/plan.js';
import type { Task } from './types.js';

/**
 * A cluster plan step as a playbook task with every field the step sets: retries without `until`
 * retry failures (and lost connections), with the delay doubling each attempt.
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
    ...attemptFields(step),
  };
  if (step.register !== undefined) task.register = step.register;
  if (step.secret) task.noLog = true;
  if (step.runOnce) task.runOnce = true;
  if (step.ignoreErrors) task.ignoreErrors = true;
  if (step.throttle !== undefined) task.throttle = step.throttle;
  return task;
}

/**
 * A step's time limit, and a code-built step's retries, as the task fields of the one attempt loop
 * (runWithRetries): the delay doubles after each attempt (capped at 60 s, or the base delay when
 * that is longer), and a lost connection is retried too, as the waits for a host's restart need.
 */
function attemptFields(step: PlanStep): Partial<Task> {
  const fields: Partial<Task> = {};
  if (step.timeoutMs !== undefined) fields.timeoutMs = step.timeoutMs;
  if (step.retries !== undefined) {
    fields.retries = step.retries;
    if (step.delayMs !== undefined) fields.delay = step.delayMs / 1000;
    fields.backoff = 2;
    fields.retryUnreachable = true;
  }
  return fields;
}

/**
 * A playbook task as a cluster plan step. The engine owns what it does for every step (run_once,
 * no_log as a secret output, register into the state's outputs, ignore_errors, throttle across
 * the task's hosts); the time limit is the step's `timeoutMs` (taskForPlanStep gives it back to
 * the task); everything else (when, loop, retries/until, changed_when, become, ...) stays in
 * `keywords` for executeTask, exactly as written.
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

/**
 * The playbook task executeTask runs for a plan step (the engine's own keywords left out), with
 * the step's time limit and a code-built step's retries (see attemptFields).
 */
export function taskForPlanStep(step: PlanStep): Task {
  if (step.keywords === undefined) {
    // A step built in code: the engine owns run_once, ignore_errors, no_log and throttle.
    const {
      runOnce: _runOnce,
      ignoreErrors: _ignore,
      noLog: _noLog,
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
    ...attemptFields(step),
  };
  // Register and no_log matter inside the task too: loop results are gathered under the name,
  // and no_log hides output from executeTask's own messages.
  if (step.register !== undefined) task.register = step.register;
  if (step.secret) task.noLog = true;
  return task;
}
