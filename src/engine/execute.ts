import { UsageError } from '../errors/index.js';
import type { TransportPool } from '../executor/transport-pool.js';
import { descendantsOf, type TaskGraph } from '../plan/graph.js';
import type { RunEvent, RunStatus } from '../types/events.js';
import type { InventoryHost } from '../types/inventory.js';
import type { ProvisionLedger } from '../types/provision.js';
import type { ConnectionReport } from '../types/transport.js';
import { Limiter } from './limiter.js';
import { OutputStore } from './outputs.js';
import { assignHost } from './provision.js';
import { Redactor } from './redactor.js';
import { resumePoint } from './resume.js';
import { provisionLedger } from './run-ledger.js';
import { runTask, type TaskRunContext, type TaskRunResult } from './run-plan-task.js';
import { schedule } from './schedule.js';
import { readSecrets } from './secrets-store.js';
import type { Selection } from './select.js';
import { type ClusterState, readState, statePath, taskHash } from './state.js';
import { StateRecorder } from './state-recorder.js';
import type { RunPlanOptions, RunSummary, StepFailure, TaskSummary } from './types.js';

type EventInput = RunEvent extends infer E ? (E extends unknown ? Omit<E, 'time'> : never) : never;

/** Where the pool's connection reports go, set once the run can emit events. */
export interface ConnectionSink {
  emit?: (report: ConnectionReport) => void;
}

/** The first error a run-event listener threw: rethrown once the run has saved its state. */
export interface ListenerTrap {
  error?: { value: unknown };
}

/** What runPlan hands the run: checked options, the graph, and the resources it holds. */
export interface ExecuteContext {
  options: RunPlanOptions;
  forks: number;
  graph: TaskGraph;
  hosts: Map<string, InventoryHost>;
  selection: Selection;
  pool: TransportPool;
  connections: ConnectionSink;
  aborter: AbortController;
  listener: ListenerTrap;
}

/** The state the run starts from and records into. */
interface RunRecords {
  previous: ClusterState | undefined;
  redactor: Redactor;
  outputs: OutputStore;
  recorder: StateRecorder;
}

/**
 * Reads what earlier runs left (and notes the run's start): the state (refused when it is another cluster's), the secrets
 * (the redactor learns them before any event goes out) and the hosts' recorded assignments.
 */
async function loadRecords(run: ExecuteContext, now: () => Date): Promise<RunRecords & { startedAt: Date }> {
  const { plan, clusterDir } = run.options;
  const previous = await readState(clusterDir);
  if (previous && previous.cluster !== plan.cluster) {
    throw new UsageError(
      `state file ${statePath(clusterDir)} belongs to cluster "${previous.cluster}", not "${plan.cluster}"; use another cluster directory`,
    );
  }
  const secrets = await readSecrets(clusterDir);
  const redactor = new Redactor();
  // A resumed run knows the secrets earlier runs registered, piece by piece, as they did.
  for (const values of Object.values(secrets)) for (const value of Object.values(values)) redactor.add(value);
  const outputs = new OutputStore(structuredClone(previous?.outputs ?? {}), secrets);
  const startedAt = now();
  const initial = StateRecorder.initial(plan, previous, outputs, startedAt.toISOString());
  const recorder = new StateRecorder(clusterDir, initial, outputs);
  // The recorded inventory is read back: hosts a provider created keep what it assigned them.
  for (const [name, assignment] of Object.entries(previous?.assignments ?? {})) {
    const host = run.hosts.get(name);
    if (host) run.hosts.set(name, assignHost(host, assignment));
  }
  return { previous, redactor, outputs, recorder, startedAt };
}

/**
 * The run's one way out to listeners: every event redacted and timed; a listener that throws
 * is trapped (runPlan rethrows it after the state is saved) instead of breaking the run.
 */
function eventEmitter(run: ExecuteContext, redactor: Redactor, now: () => Date): (event: EventInput) => void {
  const { options } = run;
  return (event: EventInput) => {
    if (!options.onEvent) return;
    try {
      options.onEvent(redactor.event({ ...event, time: now().toISOString() } as RunEvent));
    } catch (error) {
      run.listener.error ??= { value: error };
    }
  };
}

/**
 * Where the run resumes: tasks already done or excluded are summarised (and told) before any
 * task starts; tasks --from redoes are reset and saved first, so a run killed now still forgets them.
 */
async function startRun(
  run: ExecuteContext,
  records: RunRecords,
  emit: (event: EventInput) => void,
): Promise<{
  done: Set<string>;
  changedTasks: RunSummary['changedTasks'];
  summaries: Record<string, TaskSummary>;
}> {
  const { options, graph, selection } = run;
  const { plan } = options;
  const { previous, recorder } = records;
  const { done, redo, changedTasks } = resumePoint(plan, graph, previous, selection.redo);
  for (const name of redo) if (previous?.tasks[name]) recorder.setTask(name, { status: 'pending' });
  // Saved before anything runs, so a run killed now still forgets what --from asked to redo.
  await recorder.save();

  const summaries: Record<string, TaskSummary> = {};
  const alreadyDone = plan.tasks.map((t) => t.name).filter((name) => done.has(name));
  emit({
    type: 'run-start',
    cluster: plan.cluster,
    tasks: plan.tasks.map((t) => t.name),
    ...(alreadyDone.length > 0 ? { resumedFrom: alreadyDone } : {}),
  });
  for (const { name } of plan.tasks) {
    const excluded = selection.excluded.get(name);
    if (done.has(name)) {
      summaries[name] = { status: 'done', reason: 'already-done' };
      emit({ type: 'task-skip', task: name, reason: 'already-done' });
    } else if (excluded) {
      summaries[name] = { status: 'skipped', reason: excluded };
      emit({ type: 'task-skip', task: name, reason: excluded });
    } else {
      summaries[name] = { status: 'pending' };
    }
  }
  return { done, changedTasks, summaries };
}

/** What every task of the run shares (see TaskRunContext); registered secrets go to secrets.json. */
function taskRunContext(
  run: ExecuteContext,
  records: RunRecords,
  extra: { ledger: ProvisionLedger; emit: (event: EventInput) => void; now: () => Date },
): TaskRunContext {
  const { options } = run;
  const { redactor, outputs, recorder } = records;
  return {
    plan: options.plan,
    pool: run.pool,
    outputs,
    hosts: run.hosts,
    limiter: new Limiter(run.forks),
    now: extra.now,
    executeStep: options.executeStep,
    redactor,
    emit: extra.emit,
    signal: run.aborter.signal,
    ledger: extra.ledger,
    register: async (host, name, value, secret) => {
      // A value built from a secret is a secret too: it goes to secrets.json, never to state.json.
      const isSecret = secret || redactor.mentions(value);
      if (secret) redactor.add(value);
      outputs.register(host, name, value, isSecret);
      if (isSecret) await recorder.saveSecrets();
    },
  };
}

/** The outcome so far: filled in as tasks end. */
interface RunProgress {
  done: Set<string>;
  summaries: Record<string, TaskSummary>;
  failures: StepFailure[];
  failedTask?: string;
  firstError?: string | undefined;
}

/**
 * Records one task's end in the summary and the state: done, failed (its pending dependents are
 * skipped; the first failure stops the run) or interrupted (not recorded, so it runs again).
 */
async function recordTaskEnd(
  run: ExecuteContext,
  records: RunRecords,
  emit: (event: EventInput) => void,
  progress: RunProgress,
  name: string,
  result: TaskRunResult,
): Promise<void> {
  const { graph } = run;
  const { recorder } = records;
  const { summaries, done } = progress;
  progress.failures.push(...result.failures);
  const { startedAt: taskStarted, finishedAt: taskFinished, durationMs } = result;
  if (result.status === 'interrupted') {
    // Not recorded: an interrupted task stays not-done and runs again next time.
    summaries[name] = { status: 'pending', reason: 'interrupted', durationMs };
    return;
  }
  if (result.status === 'failed') {
    summaries[name] = { status: 'failed', durationMs, ...(result.error ? { error: result.error } : {}) };
    recorder.setTask(name, { status: 'failed', startedAt: taskStarted, finishedAt: taskFinished });
    if (progress.failedTask === undefined) {
      progress.failedTask = name;
      progress.firstError = result.error;
    }
    for (const dependent of descendantsOf(graph, name)) {
      if (summaries[dependent]?.status !== 'pending') continue;
      summaries[dependent] = { status: 'skipped', reason: 'dependency-failed' };
      emit({ type: 'task-skip', task: dependent, reason: 'dependency-failed' });
    }
  } else {
    done.add(name);
    summaries[name] = {
      status: 'done',
      durationMs,
      ...(result.status === 'no-hosts' ? { reason: 'no-hosts' } : {}),
    };
    const hash = taskHash(graph.byName.get(name)!);
    recorder.setTask(name, { status: 'done', startedAt: taskStarted, finishedAt: taskFinished, hash });
  }
  await recorder.save();
}

/**
 * Ends the run: connections closed (so their closing is told before run-end), the run's status
 * decided, recorded as the last run and told; the summary returned to the caller.
 */
async function finishRun(
  run: ExecuteContext,
  records: RunRecords,
  emit: (event: EventInput) => void,
  progress: RunProgress & { changedTasks: RunSummary['changedTasks']; startedAt: Date; now: () => Date },
): Promise<RunSummary> {
  const { options, selection, aborter } = run;
  const { plan } = options;
  const { redactor, recorder } = records;
  const { done, failedTask, firstError, startedAt } = progress;
  // Closed here, not only after the run, so the connections' closing is told before run-end.
  await run.pool.closeAll();
  const finishedAt = progress.now();
  let status: RunStatus = 'succeeded';
  if (aborter.signal.aborted && [...selection.selected].some((name) => !done.has(name)))
    status = 'interrupted';
  else if (failedTask !== undefined) status = 'failed';
  else if (plan.tasks.some((t) => !done.has(t.name))) status = 'stopped';
  const rawMessage = status === 'interrupted' ? (firstError ?? 'interrupted') : firstError;
  const message = rawMessage === undefined ? undefined : redactor.text(rawMessage);
  const ending = {
    ...(failedTask === undefined ? {} : { failedTask }),
    ...(message === undefined ? {} : { message }),
  };
  recorder.setLastRun({
    status,
    startedAt: startedAt.toISOString(),
    finishedAt: finishedAt.toISOString(),
    ...ending,
  });
  await recorder.save();
  const durationMs = finishedAt.getTime() - startedAt.getTime();
  emit({ type: 'run-end', status, durationMs, ...ending });
  return {
    status,
    durationMs,
    tasks: progress.summaries,
    failures: progress.failures,
    changedTasks: progress.changedTasks,
    ...(failedTask === undefined ? {} : { failedTask }),
    ...(message === undefined ? {} : { error: message }),
  };
}

/**
 * The run itself, under the lock, in stages: load what earlier runs recorded, start (resume
 * point, run-start), schedule the tasks (each end recorded as it happens), finish (run-end).
 */
export async function execute(run: ExecuteContext): Promise<RunSummary> {
  const { options, graph, selection, aborter } = run;
  const now = options.now ?? (() => new Date());
  const { startedAt, ...records } = await loadRecords(run, now);
  const ledger = await provisionLedger(run, records.recorder, now);
  const emit = eventEmitter(run, records.redactor, now);
  run.connections.emit = (report) => emit({ type: 'connection', ...report });

  const { done, changedTasks, summaries } = await startRun(run, records, emit);
  const context = taskRunContext(run, records, { ledger, emit, now });
  const progress: RunProgress = { done, summaries, failures: [] };
  await schedule({
    tasks: graph.tasks,
    done,
    startable: (task) => selection.selected.has(task.name) && summaries[task.name]?.status === 'pending',
    run: async (task) => {
      summaries[task.name] = { status: 'running' };
      const result = await runTask(context, task);
      await recordTaskEnd(run, records, emit, progress, task.name, result);
    },
    stopped: () => progress.failedTask !== undefined || aborter.signal.aborted,
    abort: () => aborter.abort(),
  });
  return finishRun(run, records, emit, { ...progress, changedTasks, startedAt, now });
}
