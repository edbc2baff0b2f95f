import type { InventoryHost } from '../types/inventory.js';
import type { TaskOutcome } from './execute-task-types.js';
import type { Task } from './types.js';

/**
 * The outcome of a task that failed before any command ran (an unknown delegate, no connection,
 * a bad throttle), shaped like a real failure so recording and the recap treat it the same.
 */
export function syntheticFailure(task: Task, host: InventoryHost, msg: string): TaskOutcome {
  const registered = { changed: false, failed: true, msg };
  return {
    status: 'failed',
    changed: false,
    failed: true,
    skipped: false,
    unreachable: false,
    ignored: task.ignoreErrors === true,
    msg,
    registered,
    facts: {},
    notify: false,
    rebootRequired: false,
    results: [],
    lastResult: {
      command: task.module,
      exitCode: null,
      stdout: '',
      stderr: msg,
      durationMs: 0,
      failed: true,
      timedOut: false,
      host: host.name,
    },
    attempts: 0,
  };
}
