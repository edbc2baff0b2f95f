import { Listr, PRESET_TIMER, type ListrTaskWrapper } from 'listr2';
import type { RunEvent, RunEventListener } from '../../types/events.js';
import type { Plan } from '../../types/plan.js';
import { type Deferred, deferred } from './deferred.js';

type Ending = { kind: 'done' } | { kind: 'failed'; message: string } | { kind: 'skipped'; reason: string };

interface TaskTrack {
  started: Deferred<void>;
  ended: Deferred<Ending>;
  wrapper?: ListrTaskWrapper<unknown, any, any>;
  /** Latest step per host, shown under the task while it runs. */
  current: Map<string, string>;
}

const SKIP_REASONS: Record<string, string> = {
  'already-done': 'done in an earlier run',
  'stop-before': 'stopped before',
  'stop-after': 'not run (stopped)',
  'dependency-failed': 'a task it needs failed',
  'no-hosts': 'no hosts',
};

/**
 * The live task list on a terminal: one listr2 row per plan task, driven by engine events.
 * listr2 is only a subscriber here; the engine knows nothing about it.
 */
export function startTaskList(plan: Plan): { listener: RunEventListener; finished: Promise<void> } {
  const tracks = new Map<string, TaskTrack>(
    plan.tasks.map((t) => [t.name, { started: deferred<void>(), ended: deferred<Ending>(), current: new Map() }]),
  );
  const listr = new Listr(
    plan.tasks.map((task) => ({
      title: `${task.name} (waiting)`,
      task: async (_ctx: unknown, wrapper: ListrTaskWrapper<unknown, any, any>) => {
        const track = tracks.get(task.name)!;
        await track.started.promise;
        track.wrapper = wrapper;
        wrapper.title = task.name;
        const ending = await track.ended.promise;
        if (ending.kind === 'skipped') {
          wrapper.title = task.name;
          wrapper.skip(`${task.name}: ${ending.reason}`);
        } else if (ending.kind === 'failed') {
          throw new Error(ending.message);
        }
      },
    })),
    {
      concurrent: true,
      exitOnError: false,
      registerSignalListeners: false,
      rendererOptions: { timer: PRESET_TIMER, collapseSkips: false, showErrorMessage: true, collapseErrors: false },
    },
  );
  const finished = listr.run().then(
    () => undefined,
    () => undefined,
  );

  const listener = (event: RunEvent) => {
    if (event.type === 'run-end') {
      for (const track of tracks.values()) {
        track.started.resolve();
        track.ended.resolve({ kind: 'skipped', reason: event.status === 'succeeded' ? 'not needed' : 'not run' });
      }
      return;
    }
    if (!('task' in event)) return;
    const track = tracks.get(event.task);
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
        track.ended.resolve(event.status === 'done' ? { kind: 'done' } : { kind: 'failed', message: event.error ?? 'failed' });
        break;
      case 'step-start':
      case 'step-retry': {
        const label = event.type === 'step-retry' ? `${event.step} (retry ${event.attempt}, in ${event.delayMs} ms)` : event.step;
        track.current.set(event.host, label);
        if (track.wrapper) track.wrapper.output = [...track.current].map(([host, step]) => `${host}: ${step}`).join('\n');
        break;
      }
      default:
        break;
    }
  };
  return { listener, finished };
}
