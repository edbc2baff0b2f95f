import { InternalError, UsageError } from '../errors/index.js';
import { TransportPool } from '../executor/transport-pool.js';
import { buildGraph, descendantsOf, type TaskGraph } from '../plan/graph.js';
import type { RunEvent, RunStatus } from '../types/events.js';
import type { InventoryHost } from '../types/inventory.js';
import { LOCALHOST } from '../types/localhost.js';
import type { Plan } from '../types/plan.js';
import type { ProvisionLedger } from '../types/provision.js';
import type { ConnectionReport } from '../types/transport.js';
import { Limiter } from './limiter.js';
import { acquireLock } from './lock.js';
import { moduleStepExecutor } from './module-step-executor.js';
import { OutputStore } from './outputs.js';
import { assignHost } from './provision.js';
import { Redactor } from './redactor.js';
import { renderPlaceholders } from './render.js';
import { resumePoint } from './resume.js';
import type { TaskRunContext, TaskRunResult } from './run-task.js';
import { schedule } from './schedule.js';
import { readSecrets } from './secrets-store.js';
import { type Selection, selectTasks } from './select.js';
import { readState, statePath, taskHash } from './state.js';
import { StateFileLedger } from './state-ledger.js';
import { StateRecorder } from './state-recorder.js';
import type { RunPlanOptions, RunSummary, StepFailure, TaskSummary } from './types.js';

/** Default number of (task, host) units that run at once. */
export const DEFAULT_FORKS = 10;

type EventInput = RunEvent extends infer E ? (E extends unknown ? Omit<E, 'time'> : never) : never;

/**
 * Runs a plan against a cluster directory and returns what happened.
 *
 * Tasks start when everything they need is done; each runs its steps on each of its hosts, at
 * most `forks` (task, host) units at a time across the run. The first task failure stops new
 * tasks from starting (running ones finish; dependents are reported skipped). State is written
 * atomically to `<clusterDir>/state.json` after every task, secret outputs only to
 * `secrets.json` (0600); a re-run skips tasks already done. See {@link selectTasks} for the
 * exact stopAfter/stopBefore/from semantics (stopAfter runs only the target and its ancestors).
 *
 * Throws before anything runs for bad options (UsageError), a bad graph (InternalError), a
 * locked cluster (ClusterLockedError) or a corrupt state file (KubemixError naming it). Task
 * failures and Ctrl-C (`signal`) are reported in the summary, never thrown.
 */
export async function runPlan(options: RunPlanOptions): Promise<RunSummary> {
  const forks = options.forks ?? DEFAULT_FORKS;
  if (!Number.isInteger(forks) || forks < 1)
    throw new UsageError(`forks must be a positive integer, got ${forks}`);
  const graph = buildGraph(options.plan);
  const hosts = inventoryByName(options.plan);
  const selection = selectTasks(graph, options);

  const lock = await acquireLock(options.clusterDir);
  // Connection reports become events once the run has its emitter (and redactor): see execute.
  const connections: ConnectionSink = {};
  const pool = new TransportPool(options.transports, (report) => connections.emit?.(report));
  const aborter = new AbortController();
  const onAbort = () => aborter.abort();
  if (options.signal?.aborted) aborter.abort();
  options.signal?.addEventListener('abort', onAbort, { once: true });
  const listener: ListenerTrap = {};
  let summary: RunSummary;
  try {
    summary = await execute({
      options,
      forks,
      graph,
      hosts,
      selection,
      pool,
      connections,
      aborter,
      listener,
    });
  } finally {
    options.signal?.removeEventListener('abort', onAbort);
    await pool.closeAll();
    await lock.release();
  }
  // A renderer that throws is a bug to report, but only once the state is saved and the lock gone.
  if (listener.error) throw listener.error.value;
  return summary;
}

interface ListenerTrap {
  error?: { value: unknown };
}

/** Where the pool's connection reports go, set once the run can emit events. */
interface ConnectionSink {
  emit?: (report: ConnectionReport) => void;
}

interface ExecuteContext {
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

/** The run itself, under the lock. */
async function execute(run: ExecuteContext): Promise<RunSummary> {
  const { options, graph, selection, aborter } = run;
  const { plan, clusterDir } = options;
  const now = options.now ?? (() => new Date());
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
  const ledger = await provisionLedger(run, recorder, now);
  const emit = (event: EventInput) => {
    if (!options.onEvent) return;
    try {
      options.onEvent(redactor.event({ ...event, time: now().toISOString() } as RunEvent));
    } catch (error) {
      run.listener.error ??= { value: error };
    }
  };

  run.connections.emit = (report) => emit({ type: 'connection', ...report });

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

  const context: TaskRunContext = {
    plan,
    pool: run.pool,
    outputs,
    hosts: run.hosts,
    limiter: new Limiter(run.forks),
    now,
    executeStep: options.executeStep ?? moduleStepExecutor,
    render: options.render ?? renderPlaceholders,
    redactor,
    emit,
    signal: aborter.signal,
    ledger,
    register: async (host, name, value, secret) => {
      // A value built from a secret is a secret too: it goes to secrets.json, never to state.json.
      const isSecret = secret || redactor.mentions(value);
      if (secret) redactor.add(value);
      outputs.register(host, name, value, isSecret);
      if (isSecret) await recorder.saveSecrets();
    },
  };
  const failures: StepFailure[] = [];
  let failedTask: string | undefined;
  let firstError: string | undefined;

  const onTaskEnd = async (name: string, result: TaskRunResult) => {
    failures.push(...result.failures);
    const { startedAt: taskStarted, finishedAt: taskFinished, durationMs } = result;
    if (result.status === 'interrupted') {
      // Not recorded: an interrupted task stays not-done and runs again next time.
      summaries[name] = { status: 'pending', reason: 'interrupted', durationMs };
      return;
    }
    if (result.status === 'failed') {
      summaries[name] = { status: 'failed', durationMs, ...(result.error ? { error: result.error } : {}) };
      recorder.setTask(name, { status: 'failed', startedAt: taskStarted, finishedAt: taskFinished });
      if (failedTask === undefined) {
        failedTask = name;
        firstError = result.error;
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
  };

  await schedule({
    graph,
    selection: selection.selected,
    done,
    summaries,
    context,
    onTaskEnd,
    stopped: () => failedTask !== undefined || aborter.signal.aborted,
    abort: () => aborter.abort(),
  });

  // Closed here, not only after the run, so the connections' closing is told before run-end.
  await run.pool.closeAll();
  const finishedAt = now();
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
    tasks: summaries,
    failures,
    changedTasks,
    ...(failedTask === undefined ? {} : { failedTask }),
    ...(message === undefined ? {} : { error: message }),
  };
}

/**
 * Where provider modules record what they create: this run's state, or (for `down`, options.ledgerDir)
 * the build's. Host assignments also reach the run's inventory, so later tasks use them.
 */
async function provisionLedger(
  run: ExecuteContext,
  recorder: StateRecorder,
  now: () => Date,
): Promise<ProvisionLedger> {
  const store: ProvisionLedger = run.options.ledgerDir
    ? await StateFileLedger.open(run.options.ledgerDir, now)
    : {
        get resources() {
          return recorder.state.resources;
        },
        record: (update) => recorder.recordProvision(update, now().toISOString()),
      };
  return {
    get resources() {
      return store.resources;
    },
    record: async (update) => {
      await store.record(update);
      for (const assignment of update.hosts ?? []) {
        const host = run.hosts.get(assignment.name);
        if (host) run.hosts.set(assignment.name, assignHost(host, assignment));
      }
    },
  };
}

/** Inventory hosts by name, adding the implicit `localhost`; a task naming an unknown host is a planner bug. */
function inventoryByName(plan: Plan): Map<string, InventoryHost> {
  const hosts = new Map(plan.hosts.map((h) => [h.name, h]));
  if (!hosts.has(LOCALHOST.name)) hosts.set(LOCALHOST.name, LOCALHOST);
  for (const task of plan.tasks) {
    for (const name of task.hosts) {
      if (!hosts.has(name)) throw new InternalError(`task "${task.name}" targets unknown host "${name}"`);
    }
    if (new Set(task.hosts).size !== task.hosts.length) {
      throw new InternalError(`task "${task.name}" lists a host twice`);
    }
  }
  return hosts;
}
