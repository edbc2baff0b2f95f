import type { RunEvent } from '../../types/events.js';

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)}s`;

/**
 * Plain lines for logs and CI (no TTY): one line per meaningful event, stable enough to grep.
 * Returns undefined for events not worth a line (live output chunks).
 */
export function formatEventLine(event: RunEvent): string | undefined {
  switch (event.type) {
    case 'run-start':
      return `run ${event.cluster}: ${event.tasks.length} tasks`;
    case 'task-start':
      return `START ${event.task} on ${event.hosts.join(', ') || '(no hosts)'}`;
    case 'task-skip':
      return `SKIP  ${event.task} (${event.reason})`;
    case 'step-start':
      return undefined;
    case 'step-output':
      return undefined;
    case 'step-progress':
      return `WAIT  ${event.task} ${event.host}: ${event.message}`;
    case 'step-retry':
      return `RETRY ${event.task} ${event.host}: ${event.step} (attempt ${event.attempt} failed, next in ${event.delayMs} ms)`;
    case 'step-end': {
      // Playbook tasks are their own single step: name it once.
      const what =
        event.step === event.task
          ? `${event.task} [${event.host}]`
          : `${event.task} ${event.host}: ${event.step}`;
      // A step whose `when` was false ran nothing, so it has no time to show (Ansible: "skipping: [host]").
      if (event.status === 'skipped') return `SKIPPED ${what}`;
      // debug steps exist to be read: their message is part of the line.
      const message =
        event.result.command === 'debug' && event.result.stdout ? `: ${event.result.stdout}` : '';
      return `${event.status.toUpperCase().padEnd(5)} ${what} (${event.result.durationMs} ms)${message}`;
    }
    case 'connection':
      return undefined; // -vvv shows connections (verbose-lines.ts)
    case 'host-unreachable':
      return `UNREACHABLE ${event.task} ${event.host}: ${event.message}`;
    case 'task-end':
      return event.status === 'done'
        ? `DONE  ${event.task} (${seconds(event.durationMs)})`
        : `FAIL  ${event.task} (${seconds(event.durationMs)}): ${event.error ?? 'failed'}`;
    case 'run-end':
      return `run ${event.status} in ${seconds(event.durationMs)}${event.failedTask ? `: ${event.failedTask} failed` : ''}`;
  }
}

/** One JSON object per line (`--log-format json`): the event as the engine emitted it. */
export function formatEventJson(event: RunEvent): string {
  return JSON.stringify(event);
}
