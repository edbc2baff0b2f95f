import { createWriteStream, type WriteStream } from 'node:fs';
import { dirname } from 'node:path';
import { ensurePrivateDir, PRIVATE_FILE_MODE } from '../fs/private-files.js';
import type { RunEvent, RunEventListener } from '../types/events.js';
import { err, isInteractive, out } from './output.js';
import { formatEventJson, formatEventLine } from './render/line-log.js';
import { verboseListener } from './verbose-lines.js';

/** What a running command gets: where to send events, and the Ctrl-C signal to pass down. */
export interface RunSession {
  onEvent: RunEventListener;
  signal: AbortSignal;
  /** Waits for the renderers to finish drawing, closes the log and stops listening for Ctrl-C. */
  finish(): Promise<void>;
}

/**
 * Sets up the subscribers of a run (engine or playbook): a listr2 task list on a terminal, plain
 * lines otherwise (or under CI), either with what -v/-vv/-vvv add; JSON lines with --log-format
 * json; plus an optional JSON-lines log file and any `listeners` the caller adds (the CI report); and turns the first Ctrl-C /
 * SIGTERM into an abort of the run, unless the caller passes its own `signal` (then the caller
 * owns Ctrl-C and SIGTERM, as `kubemix ci` does across its build and teardown).
 */
export async function startRunSession(options: {
  logFormat: 'text' | 'json';
  logPath?: string;
  listeners?: RunEventListener[];
  signal?: AbortSignal;
  /** -v, -vv, -vvv: 0 to 3 (text output only; the JSON lines carry every event anyway). */
  verbosity?: number;
}): Promise<RunSession> {
  const verbosity = options.logFormat === 'text' ? (options.verbosity ?? 0) : 0;
  const listeners: RunEventListener[] = [...(options.listeners ?? [])];
  let log: WriteStream | undefined;
  if (options.logPath) {
    await ensurePrivateDir(dirname(options.logPath));
    const stream = createWriteStream(options.logPath, { flags: 'a', mode: PRIVATE_FILE_MODE });
    log = stream;
    listeners.push((event) => stream.write(`${formatEventJson(event)}\n`));
  }
  let taskList: (() => Promise<void>) | undefined;
  if (options.logFormat === 'json') {
    listeners.push((event) => out(formatEventJson(event)));
  } else if (isInteractive()) {
    // listr2 loads only when there is a terminal to draw on.
    const { createTaskList } = await import('./render/task-list.js');
    // Verbose lines go under their task's row: printed beside the list they would tear it.
    const list = createTaskList({ verbosity });
    listeners.push(list.listener);
    taskList = list.finished;
  } else {
    const verbose = verboseListener(verbosity, out);
    listeners.push((event) => {
      const line = formatEventLine(event);
      if (line) out(line);
      verbose?.(event);
    });
  }

  const controller = new AbortController();
  // The listener stays until finish(): listr2's cursor restorer (signal-exit, through log-update)
  // re-raises a signal when it finds itself the only listener, which killed the process on the
  // first Ctrl-C on a terminal before the state was recorded. A second signal still ends the
  // process at once: this listener steps aside and raises it again.
  const onSignal = (signal: NodeJS.Signals) => {
    if (controller.signal.aborted) {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
      process.kill(process.pid, signal);
      return;
    }
    err('\ninterrupted: stopping running steps and recording state');
    controller.abort();
  };
  if (!options.signal) {
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
  }

  return {
    onEvent: (event: RunEvent) => {
      for (const listener of listeners) listener(event);
    },
    signal: options.signal ?? controller.signal,
    finish: async () => {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
      await taskList?.();
      if (log) {
        const stream = log;
        await new Promise<void>((resolve) => stream.end(resolve));
      }
    },
  };
}
