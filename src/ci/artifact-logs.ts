import { createWriteStream, type WriteStream } from 'node:fs';
import { join } from 'node:path';
import { ensurePrivateDir, PRIVATE_FILE_MODE } from '../fs/private-files.js';
import type { RunEvent, RunEventListener } from '../types/events.js';

/** Where the per-host logs go inside the out directory. */
export const HOST_LOG_DIR = 'hosts';

/**
 * Streams a CI run's events to the out directory as they happen, so a run killed half-way still
 * leaves them: `events.jsonl` (every RunEvent, as `--log-format json` prints them) and
 * `hosts/<host>.log` (each host's steps, output and results, one line each). The engine has
 * already redacted the events; the secret scan checks these files again at the end.
 */
export class ArtifactLogs {
  /** Time spent in the listener, for the reporting budget. */
  busyMs = 0;
  private readonly hostLogs = new Map<string, WriteStream>();
  /** (task, host) pairs whose current step streamed output: otherwise step-end's result has it. */
  private readonly streamed = new Set<string>();

  private constructor(
    private readonly dir: string,
    private readonly events: WriteStream,
  ) {}

  /** Opens `events.jsonl` and makes `hosts/` in `dir`. */
  static async open(dir: string): Promise<ArtifactLogs> {
    await ensurePrivateDir(join(dir, HOST_LOG_DIR));
    return new ArtifactLogs(dir, createWriteStream(join(dir, 'events.jsonl'), { mode: PRIVATE_FILE_MODE }));
  }

  /** The subscriber to add to a run. */
  readonly listener: RunEventListener = (event) => {
    const started = performance.now();
    this.events.write(`${JSON.stringify(event)}\n`);
    const line = hostLine(event, this.streamed);
    if (line) this.hostLog(line.host).write(`${event.time} ${line.text}\n`);
    this.busyMs += performance.now() - started;
  };

  private hostLog(host: string): WriteStream {
    let stream = this.hostLogs.get(host);
    if (!stream) {
      const name = `${host.replace(/[^A-Za-z0-9._-]/g, '_')}.log`;
      stream = createWriteStream(join(this.dir, HOST_LOG_DIR, name), { mode: PRIVATE_FILE_MODE });
      this.hostLogs.set(host, stream);
    }
    return stream;
  }

  /** Flushes and closes every file. */
  async close(): Promise<void> {
    const streams = [this.events, ...this.hostLogs.values()];
    await Promise.all(streams.map((s) => new Promise<void>((resolve) => s.end(resolve))));
  }
}

/** Output as log lines (continuation lines indented under the event's time). */
function outputLines(task: string, stream: string, data: string): string {
  return data
    .replace(/\n$/, '')
    .split('\n')
    .map((line) => `${task} | ${stream}: ${line}`)
    .join('\n    ');
}

/** The line an event adds to its host's log, if it concerns one host. */
function hostLine(event: RunEvent, streamed: Set<string>): { host: string; text: string } | undefined {
  switch (event.type) {
    case 'step-start':
      streamed.delete(`${event.task}\u0000${event.host}`);
      return { host: event.host, text: `${event.task} | ${event.step} | start (attempt ${event.attempt})` };
    case 'step-output':
      streamed.add(`${event.task}\u0000${event.host}`);
      return { host: event.host, text: outputLines(event.task, event.stream, event.data) };
    case 'step-retry':
      return {
        host: event.host,
        text: `${event.task} | ${event.step} | attempt ${event.attempt} failed (exit ${event.result.exitCode ?? 'none'}), retry in ${event.delayMs} ms`,
      };
    case 'step-end': {
      // Its `when` was false (or its loop had no item): no command ran, so there is no exit code to tell.
      if (event.status === 'skipped')
        return { host: event.host, text: `${event.task} | ${event.step} | skipped: nothing ran` };
      const { result } = event;
      const how = result.timedOut
        ? 'timed out'
        : result.signal
          ? `killed by ${result.signal}`
          : `exit ${result.exitCode ?? 'none'}`;
      const output = streamed.has(`${event.task}\u0000${event.host}`)
        ? []
        : [
            ...(result.stdout ? [outputLines(event.task, 'stdout', result.stdout)] : []),
            ...(result.stderr ? [outputLines(event.task, 'stderr', result.stderr)] : []),
          ];
      return {
        host: event.host,
        text: [
          ...output,
          `${event.task} | ${event.step} | ${event.status} (${how}, ${result.durationMs} ms): ${result.command}`,
        ].join('\n    '),
      };
    }
    case 'host-unreachable':
      return { host: event.host, text: `${event.task} | unreachable: ${event.message}` };
    default:
      return undefined;
  }
}
