import type { Play, Task } from './types.js';

/**
 * The task as it runs in its play: become, become_user, ignore_errors and throttle come from
 * the play when the task sets none; a play's environment mapping is the base the task's extends.
 */
export function withPlayKeywords(task: Task, play: Play): Task {
  const effective: Task = { ...task };
  if (effective.become === undefined && play.become !== undefined) effective.become = play.become;
  if (effective.becomeUser === undefined && play.becomeUser !== undefined)
    effective.becomeUser = play.becomeUser;
  if (effective.ignoreErrors === undefined && play.ignoreErrors !== undefined)
    effective.ignoreErrors = play.ignoreErrors;
  if (play.environment !== undefined) {
    effective.environment =
      typeof play.environment === 'object' &&
      (task.environment === undefined || typeof task.environment === 'object')
        ? { ...play.environment, ...(task.environment ?? {}) }
        : (task.environment ?? play.environment);
  }
  if (effective.throttle === undefined && play.throttle !== undefined) effective.throttle = play.throttle;
  return effective;
}
