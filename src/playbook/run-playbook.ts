import { basename } from 'node:path';
import { Redactor } from '../engine/redactor.js';
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
    for (const play of playbook.plays) {
      if (options.signal?.aborted) break;
      await runPlay(run, play);
    }
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

/**
 * Runs one play with the linear strategy: each selected task on every host still in the play,
 * and after each tasks section (pre_tasks, tasks, post_tasks) the handlers that were notified.
 */
async function runPlay(run: PlaybookRun, play: Play): Promise<void> {
  const { options } = run;
  const match = resolveHostPattern(run.inventory, play.hosts);
  let hosts = match.hosts.map((name) => run.hostByName.get(name)!);
  if (match.unmatched.some((name) => namesThisMachine(name)) && !run.hostByName.has(IMPLICIT_LOCALHOST.name))
    hosts.push(IMPLICIT_LOCALHOST);
  const { limitHosts } = run;
  if (limitHosts) hosts = hosts.filter((h) => limitHosts.has(h.name) || h === IMPLICIT_LOCALHOST);
  hosts = hosts.filter((h) => !run.dropped.has(h.name));
  for (const h of hosts) run.stats[h.name] ??= emptyStats();
  if (hosts.length === 0) return;
  const playRun: PlayRun = {
    run,
    play,
    hosts,
    active: [...hosts],
    playVars: await loadVarsFiles(play, run.playbook, run.extraVars),
    notified: new Map<Task, Set<string>>(),
  };
  for (const section of play.sections) {
    for (const task of section) {
      if (options.signal?.aborted || playRun.active.length === 0) break;
      if (!taskSelected(task, play, options)) continue;
      await runTask(playRun, task, [...playRun.active]);
    }
    if (playRun.active.length > 0) await flushHandlers(playRun);
  }
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
