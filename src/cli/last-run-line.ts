import type { LastRunState } from '../engine/state.js';

/**
 * `status`'s line about the last run: how it ended, where, and its message — without the message
 * repeating what the line already says. An interrupted run's message is `interrupted`; a
 * failure's starts `task T failed on host H`, which names the task `at T` would name again.
 */
export function lastRunLine(lastRun: LastRunState): string {
  const message = lastRun.message === lastRun.status ? undefined : lastRun.message;
  const namesTask = lastRun.failedTask !== undefined && message?.startsWith(`task ${lastRun.failedTask} `);
  const at = lastRun.failedTask && !namesTask ? ` at ${lastRun.failedTask}` : '';
  return `last run: ${lastRun.status}${at}${message ? `: ${message}` : ''}`;
}
