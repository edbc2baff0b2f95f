import { basename } from 'node:path';
import { Redactor } from '../engine/redactor.js';
import { type SchedulableTask, schedule } from '../engine/schedule.js';
import { EXIT, UsageError } from '../errors/index.js';
import { type TransportFactory, TransportPool } from '../executor/transport-pool.js';
import { requireUsableCredentials } from '../plan/credential-check.js';
import { localCredentialLookup } from '../transport/ssh/index.js';
import type { RunEvent, RunStatus } from '../types/events.js';
import { namesThisMachine } from '../types/localhost.js';
import { resolveConnectionSecrets } from './connection-secrets.js';
import { resolveHostPattern, targetedHosts } from './host-pattern.js';
import { IMPLICIT_LOCALHOST } from './implicit-localhost.js';
import { groupHosts, groupsOfHost } from './inventory.js';
import { loadPlaybook } from './parse-playbook.js';
import { emptyStats, exitCodeFor } from './recap.js';
import { runTask } from './run-task.js';
import type {
  PlaybookResult,
  PlaybookRun,
  PlayRun,
  RunPlaybookOptions,
  UntimedRunEvent,
} from './run-types.js';
import { taskSelected } from './tags.js';
import type { Play, Playbook, Task } from './types.js';
import { loadVarsFiles } from './vars-files.js';

export { IMPLICIT_LOCALHOST } from './implicit-localhost.js';
export type { PlaybookResult, RunPlaybookOptions, TaskRecord } from './run-types.js';

/**
 * Runs an Ansible playbook with the linear strategy: each task runs on every play host (at
 * most `forks` at once) before the next task starts. A failed host leaves the rest of the
 * run; unreachable hosts are reported and dropped while the others carry on; handlers run at
 * the end of each tasks section on the hosts that notified them. Emits RunEvents with each
 * play task as a `task` and the task name as the `step`.
 *
 * The stages, each in its file: this one (the run, its plays and their handlers), run-task.ts (a
 * task on its hosts, and on one host: when, delegate_to, its connection), execute-task.ts (loop
 * items and attempts), run-once.ts (one module run with become and environment).
 */
export async function runPlaybook(options: RunPlaybookOptions): Promise<PlaybookResult> {
  const started = Date.now();
  const playbook =
    typeof options.playbook === 'string' ? await loadPlaybook(options.playbook) : options.playbook;
  const run = startRun(options, playbook);
  const { emit, pool, stats, records, facts } = run;

  const allTasks = playbook.plays.flatMap((play) =>
    play.sections
      .flat()
      .filter((t) => taskSelected(t, play, options))
      .map((t) => t.name),
  );
  emit({ type: 'run-start', cluster: playbook.path ? basename(playbook.path) : 'playbook', tasks: allTasks });

  let status: RunStatus = 'succeeded';
  try {
    await runLinear(run, playbook);
  } finally {
    if (!options.pool) await pool.closeAll();
  }
  if (options.signal?.aborted) status = 'interrupted';
  const exitCode = status === 'interrupted' ? EXIT.interrupted : exitCodeFor(stats);
  if (status === 'succeeded' && exitCode !== EXIT.ok) status = 'failed';
  const durationMs = Date.now() - started;
  emit({
    type: 'run-end',
    status,
    durationMs,
    ...(exitCode === EXIT.ok ? {} : { message: `exit code ${exitCode}` }),
  });
  return { status, exitCode, stats, records, facts, durationMs };
}

/**
 * Sets a run up before its first event: the redactor, the inventory's connection secrets (one
 * that cannot be resolved stops the run here), the transport pool and the `--limit` hosts.
 */
function startRun(options: RunPlaybookOptions, playbook: Playbook): PlaybookRun {
  const { inventory } = options;
  // The same redaction as `kubemix up`: what a no_log task registers is a secret for the rest
  // of the run, hidden wherever it turns up again (commands, output, messages, records).
  const redactor = new Redactor();
  const emit = (event: UntimedRunEvent) =>
    options.onEvent?.(redactor.event({ ...event, time: new Date().toISOString() } as RunEvent));
  // The inventory's connection passwords are hidden the same way, from the first event on, and
  // one that cannot be resolved (an unset variable in a lookup) stops the run before it starts.
  const targeted = targetedHosts(playbook, inventory, options.limit);
  // Key files and password references that do not resolve here: refused before any connection.
  requireUsableCredentials(targeted, localCredentialLookup);
  const secrets = resolveConnectionSecrets(targeted, {
    playbookDir: playbook.dir,
  });
  for (const value of secrets.values) redactor.addWhole(value);
  const transports: TransportFactory = (host) => options.transports(host, secrets.byHost.get(host.name));
  const run: PlaybookRun = {
    options,
    playbook,
    inventory,
    extraVars: options.extraVars ?? {},
    forks: options.forks ?? 5,
    pool: options.pool ?? new TransportPool(transports, (report) => emit({ type: 'connection', ...report })),
    redactor,
    emit,
    stats: {},
    records: [],
    facts: {},
    registered: {},
    dropped: new Set(),
    hostByName: new Map(inventory.hosts.map((h) => [h.name, h])),
    groupsVar: Object.fromEntries(Object.keys(inventory.groups).map((g) => [g, groupHosts(inventory, g)])),
    groupNames: new Map(inventory.hosts.map((h) => [h.name, groupsOfHost(inventory, h.name)])),
  };
  if (options.limit) {
    const match = resolveHostPattern(inventory, options.limit);
    if (match.hosts.length === 0)
      throw new UsageError(`--limit "${options.limit}" matches no host of the inventory`);
    run.limitHosts = new Set(match.hosts);
  }
  return run;
}

/** What one step of a playbook's linear run does: start a play, run a task of one of its sections, or flush the handlers after a section. */
type LinearStepKind = { kind: 'play'; play: Play } | { kind: 'task'; task: Task } | { kind: 'handlers' };

/** A linear step as the scheduler sees it: named by its position, needing the step before. */
type LinearStep = SchedulableTask & LinearStepKind;

/**
 * The playbook as the scheduler's graph: a chain, each step waiting for the one before (Ansible's
 * linear strategy) — each play, then each task of its sections (pre_tasks, tasks, post_tasks) on
 * every host still in the play, with the notified handlers after each section.
 */
function linearSteps(playbook: Playbook): LinearStep[] {
  const steps: LinearStep[] = [];
  const add = (step: LinearStepKind) =>
    steps.push({
      ...step,
      name: String(steps.length),
      needs: steps.length > 0 ? [String(steps.length - 1)] : [],
    });
  for (const play of playbook.plays) {
    add({ kind: 'play', play });
    for (const section of play.sections) {
      for (const task of section) add({ kind: 'task', task });
      add({ kind: 'handlers' });
    }
  }
  return steps;
}

/**
 * Runs the playbook's steps through the one scheduler (engine/schedule.ts). A play whose hosts
 * have all failed or dropped out skips the rest of its steps; the next play starts with the hosts
 * still in the run. An interrupted run starts nothing more.
 */
async function runLinear(run: PlaybookRun, playbook: Playbook): Promise<void> {
  const { options } = run;
  let current: PlayRun | undefined;
  const done = new Set<string>();
  await schedule({
    tasks: linearSteps(playbook),
    done,
    startable: () => true,
    run: async (step) => {
      if (step.kind === 'play') current = await startPlay(run, step.play);
      else if (current && current.active.length > 0) {
        if (step.kind === 'handlers') await flushHandlers(current);
        else if (taskSelected(step.task, current.play, options))
          await runTask(current, step.task, [...current.active]);
      }
      done.add(step.name);
    },
    stopped: () => options.signal?.aborted === true,
    abort: () => undefined,
  });
}

/** A play's hosts (its pattern, `--limit`, without the hosts dropped from the run) and vars; undefined when it has none. */
async function startPlay(run: PlaybookRun, play: Play): Promise<PlayRun | undefined> {
  const match = resolveHostPattern(run.inventory, play.hosts);
  let hosts = match.hosts.map((name) => run.hostByName.get(name)!);
  if (match.unmatched.some((name) => namesThisMachine(name)) && !run.hostByName.has(IMPLICIT_LOCALHOST.name))
    hosts.push(IMPLICIT_LOCALHOST);
  const { limitHosts } = run;
  if (limitHosts) hosts = hosts.filter((h) => limitHosts.has(h.name) || h === IMPLICIT_LOCALHOST);
  hosts = hosts.filter((h) => !run.dropped.has(h.name));
  for (const h of hosts) run.stats[h.name] ??= emptyStats();
  if (hosts.length === 0) return undefined;
  return {
    run,
    play,
    hosts,
    active: [...hosts],
    playVars: await loadVarsFiles(play, run.playbook, run.extraVars),
    notified: new Map<Task, Set<string>>(),
  };
}

/** Runs each notified handler, in the order the play lists them, on the notifying hosts still active. */
async function flushHandlers(playRun: PlayRun): Promise<void> {
  for (const handler of playRun.play.handlers) {
    const who = playRun.notified.get(handler);
    if (!who || who.size === 0) continue;
    playRun.notified.delete(handler);
    const targets = playRun.active.filter((h) => who.has(h.name));
    if (targets.length > 0 && !playRun.run.options.signal?.aborted) await runTask(playRun, handler, targets);
  }
}
