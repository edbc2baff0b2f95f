import { type DefaultRenderer, Listr, type ListrTaskWrapper, type SimpleRenderer } from 'listr2';
import type { RunEvent, RunEventListener } from '../../types/events.js';
import { out } from '../output.js';
import { verboseLines } from '../verbose-lines.js';
import { type Deferred, deferred } from './deferred.js';

type TaskWrapper = ListrTaskWrapper<unknown, typeof DefaultRenderer, typeof SimpleRenderer>;

type Ending =
  | { kind: 'done'; durationMs: number }
  | { kind: 'failed'; message: string }
  | { kind: 'skipped'; reason: string };

interface TaskTrack {
  name: string;
  started: Deferred<void>;
  ended: Deferred<Ending>;
  wrapper?: TaskWrapper;
  /** Latest step per host, shown under the task while it runs. */
  current: Map<string, string>;
  /** Steps that ended on a host, and which of them were skipped (their `when` was false). */
  stepsEnded: number;
  skippedHosts: Set<string>;
  stepsSkipped: number;
  /** What -v/-vv/-vvv add for this task, the last VERBOSE_ROWS of them (the event log has all). */
  verbose: string[];
}

/** How many verbose lines a task's row keeps under it: a terminal is not a log. */
const VERBOSE_ROWS = 20;

const SKIP_REASONS: Record<string, string> = {
  'already-done': 'done in an earlier run',
  'stop-before': 'stopped before',
  'stop-after': 'not run (stopped)',
  'dependency-failed': 'a task it needs failed',
  'no-hosts': 'no hosts',
};

/**
 * The live task list on a terminal: one listr2 row per task named in `run-start` (plan tasks,
 * or a playbook's tasks in order; names may repeat), driven by engine events. listr2 is only a
 * subscriber: neither the engine nor the playbook runner knows about it.
 */
export function createTaskList(options: { verbosity?: number } = {}): {
  listener: RunEventListener;
  finished: () => Promise<void>;
} {
  const verbosity = options.verbosity ?? 0;
  const byName = new Map<string, TaskTrack[]>();
  const all: TaskTrack[] = [];
  let finished: Promise<void> = Promise.resolve();
  /** Verbose lines no running task owns (a connection closed after the last task): printed after the list. */
  const afterList: string[] = [];

  /** The track an event is about: the running one with that name, else the next one to start. */
  const trackFor = (name: string, starting: boolean): TaskTrack | undefined => {
    const tracks = byName.get(name) ?? [];
    if (starting) return tracks.find((t) => !t.started.settled);
    return tracks.find((t) => t.started.settled && !t.ended.settled) ?? tracks.find((t) => !t.ended.settled);
  };

  const start = (names: string[]) => {
    for (const name of names) {
      const track: TaskTrack = {
        name,
        started: deferred<void>(),
        ended: deferred<Ending>(),
        current: new Map(),
        stepsEnded: 0,
        skippedHosts: new Set(),
        stepsSkipped: 0,
        verbose: [],
      };
      all.push(track);
      byName.set(name, [...(byName.get(name) ?? []), track]);
    }
    const listr = new Listr(
      all.map((track) => ({
        title: `${track.name} (waiting)`,
        // -v...: a finished row keeps its verbose lines, as Ansible's output keeps each result.
        ...(verbosity > 0 ? { rendererOptions: { persistentOutput: true } } : {}),
        task: async (_ctx: unknown, wrapper: TaskWrapper) => {
          await track.started.promise;
          track.wrapper = wrapper;
          wrapper.title = track.name;
          render(track);
          const ending = await track.ended.promise;
          // What stays under a finished row: the verbose lines, not where each host was.
          track.current.clear();
          render(track);
          // The engine's own duration: listr2's timer would also count the time spent waiting.
          if (ending.kind === 'done') wrapper.title = doneTitle(track, ending.durationMs);
          if (ending.kind === 'skipped') wrapper.skip(`${track.name}: ${ending.reason}`);
          else if (ending.kind === 'failed') throw new Error(ending.message);
        },
      })),
      {
        concurrent: true,
        exitOnError: false,
        registerSignalListeners: false,
        rendererOptions: {
          collapseSkips: false,
          showErrorMessage: true,
          collapseErrors: false,
        },
      },
    );
    finished = listr.run().then(
      () => undefined,
      () => undefined,
    );
  };

  /** The running task a host's connection belongs to: the one showing a step on that host. */
  const runningOn = (host: string): TaskTrack | undefined =>
    all.find((t) => t.started.settled && !t.ended.settled && t.current.has(host)) ??
    all.find((t) => t.started.settled && !t.ended.settled);

  const addVerbose = (event: RunEvent) => {
    // The row already indents what is under it: the plain-line indent would double it.
    const lines = verboseLines(verbosity, event).map((line) => line.replace(/^ {4}/, ''));
    if (lines.length === 0) return;
    const track =
      event.type === 'connection'
        ? runningOn(event.host)
        : 'task' in event
          ? trackFor(event.task, false)
          : undefined;
    if (!track) {
      afterList.push(...lines);
      return;
    }
    track.verbose = [...track.verbose, ...lines].slice(-VERBOSE_ROWS);
    render(track);
  };

  const listener = (event: RunEvent) => {
    if (event.type === 'run-start') return start(event.tasks);
    // Before the event moves the row on (a task-end would leave a step's result without a row).
    if (verbosity > 0) addVerbose(event);
    if (event.type === 'run-end') {
      for (const track of all) {
        track.started.resolve();
        track.ended.resolve({
          kind: 'skipped',
          reason: event.status === 'succeeded' ? 'not needed' : 'not run',
        });
      }
      return;
    }
    if (!('task' in event)) return;
    const track = trackFor(event.task, event.type === 'task-start' || event.type === 'task-skip');
    if (!track) return;
    switch (event.type) {
      case 'task-start':
        track.started.resolve();
        break;
      case 'task-skip':
        track.started.resolve();
        track.ended.resolve({ kind: 'skipped', reason: SKIP_REASONS[event.reason] ?? event.reason });
        break;
      case 'task-end':
        track.ended.resolve(
          event.status === 'failed'
            ? { kind: 'failed', message: event.error ?? 'failed' }
            : track.stepsEnded > 0 && track.stepsSkipped === track.stepsEnded
              ? // Every step's `when` was false: nothing ran, as Ansible's "skipping: [host]".
                { kind: 'skipped', reason: `skipped on ${[...track.skippedHosts].join(', ')}` }
              : { kind: 'done', durationMs: event.durationMs },
        );
        break;
      case 'step-end':
        track.stepsEnded += 1;
        if (event.status === 'skipped') {
          track.stepsSkipped += 1;
          track.skippedHosts.add(event.host);
          showStep(track, event.host, `${event.step}: skipped`);
        }
        break;
      case 'step-start':
      case 'step-progress':
      case 'step-retry': {
        const label =
          event.type === 'step-retry'
            ? `${event.step} (retry ${event.attempt}, in ${event.delayMs} ms)`
            : event.type === 'step-progress'
              ? `${event.step}: ${event.message}`
              : event.step;
        showStep(track, event.host, label);
        break;
      }
      default:
        break;
    }
  };
  return {
    listener,
    finished: async () => {
      await finished;
      for (const line of afterList.splice(0)) out(line);
    },
  };
}

/** Shows what a host is at under its task's row. */
function showStep(track: TaskTrack, host: string, label: string): void {
  track.current.set(host, label);
  render(track);
}

/** The lines under a task's row: where each host is, then the verbose lines (-v...). */
function render(track: TaskTrack): void {
  if (!track.wrapper) return;
  track.wrapper.output = [
    ...[...track.current].map(([name, step]) => `${name}: ${step}`),
    ...track.verbose,
  ].join('\n');
}

/** A finished task's row: the engine's duration, and how many of its steps were skipped. */
function doneTitle(track: TaskTrack, durationMs: number): string {
  const skipped = track.stepsSkipped > 0 ? `; ${track.stepsSkipped} skipped` : '';
  return `${track.name} [${(durationMs / 1000).toFixed(1)}s${skipped}]`;
}
