import { readFile } from 'node:fs/promises';
import { basename, isAbsolute, join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { lineBuffer } from '../engine/line-buffer.js';
import { hiddenResult, NO_LOG_MESSAGE } from '../engine/no-log.js';
import { Redactor } from '../engine/redactor.js';
import { THROTTLE_NOT_INTEGER, Throttle, throttleValue } from '../engine/throttle.js';
import { ConnectionError, SpecError, UsageError } from '../errors/index.js';
import { type TransportFactory, TransportPool } from '../executor/transport-pool.js';
import { renderString, renderValue } from '../template/index.js';
import type { RunEvent, RunEventListener, RunStatus, StepStatus } from '../types/events.js';
import type { InventoryHost } from '../types/inventory.js';
import { resolveConnectionSecrets } from './connection-secrets.js';
import { executeTask, OMIT, type TaskOutcome } from './execute-task.js';
import { resolveHostPattern, targetedHosts } from './host-pattern.js';
import { groupHosts, groupsOfHost } from './inventory.js';
import { loadPlaybook } from './parse-playbook.js';
import { EXIT, emptyStats, exitCodeFor, type HostStats } from './recap.js';
import { taskSelected } from './tags.js';
import type { Inventory, Play, Playbook, Task } from './types.js';
import { mergeVars } from './vars.js';
import { ANSIBLE_YAML } from './yaml-source.js';

/** Options of {@link runPlaybook}. */
export interface RunPlaybookOptions {
  /** A playbook file, or a playbook already parsed. */
  playbook: string | Playbook;
  inventory: Inventory;
  /** `-e` variables (highest precedence); see parseExtraVars. */
  extraVars?: Record<string, unknown>;
  /** `--limit` host pattern. */
  limit?: string;
  /** `--check`: dry run. */
  check?: boolean;
  /** Hosts worked on at once (Ansible's default is 5). */
  forks?: number;
  tags?: string[];
  skipTags?: string[];
  /** Makes transports for hosts; kubemix's playbook code never imports a wire. */
  transports: TransportFactory;
  /** Share connections with the caller (otherwise a pool is made and closed here). */
  pool?: TransportPool;
  onEvent?: RunEventListener;
  signal?: AbortSignal;
  /** Default time limit of each command, ms. */
  timeoutMs?: number;
}

/** One task on one host, for the CLI's task list. */
export interface TaskRecord {
  play: string;
  task: string;
  host: string;
  status: StepStatus;
  ignored: boolean;
  msg?: string;
  /** Where the commands ran, with delegate_to. */
  delegatedTo?: string;
}

/** What a playbook run did. */
export interface PlaybookResult {
  status: RunStatus;
  /** ansible-playbook's exit code: 0 ok, 2 failed hosts, 4 unreachable hosts (wins over 2), 99 interrupted. */
  exitCode: number;
  /** PLAY RECAP counters per host, in the order hosts were first targeted. */
  stats: Record<string, HostStats>;
  records: TaskRecord[];
  /** Variables set by set_fact, per host. */
  facts: Record<string, Record<string, unknown>>;
  durationMs: number;
}

/** The machine running kubemix, when a play or delegate_to names `localhost` and the inventory does not. */
export const IMPLICIT_LOCALHOST: InventoryHost = {
  name: 'localhost',
  address: '127.0.0.1',
  os: 'linux',
  connection: 'local',
  role: 'controller',
  group: 'ungrouped',
  vars: { ansible_connection: 'local' },
};

async function mapLimit<T>(items: T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const workers = Array.from({ length: Math.min(Math.max(1, limit), items.length) }, async () => {
    while (next < items.length) await fn(items[next++]!);
  });
  await Promise.all(workers);
}

/**
 * Runs an Ansible playbook with the linear strategy: each task runs on every play host (at
 * most `forks` at once) before the next task starts. A failed host leaves the rest of the
 * run; unreachable hosts are reported and dropped while the others carry on; handlers run at
 * the end of each tasks section on the hosts that notified them. Emits RunEvents with each
 * play task as a `task` and the task name as the `step`.
 */
export async function runPlaybook(options: RunPlaybookOptions): Promise<PlaybookResult> {
  const started = Date.now();
  const playbook =
    typeof options.playbook === 'string' ? await loadPlaybook(options.playbook) : options.playbook;
  const { inventory } = options;
  // The same redaction as `kubemix up`: what a no_log task registers is a secret for the rest
  // of the run, hidden wherever it turns up again (commands, output, messages, records).
  const redactor = new Redactor();
  const emit = (event: DistributiveOmit<RunEvent, 'time'>) =>
    options.onEvent?.(redactor.event({ ...event, time: new Date().toISOString() } as RunEvent));
  // The inventory's connection passwords are hidden the same way, from the first event on, and
  // one that cannot be resolved (an unset variable in a lookup) stops the run before it starts.
  const secrets = resolveConnectionSecrets(targetedHosts(playbook, inventory, options.limit), {
    playbookDir: playbook.dir,
  });
  for (const value of secrets.values) redactor.addWhole(value);
  const transports: TransportFactory = (host) => options.transports(host, secrets.byHost.get(host.name));
  const extraVars = options.extraVars ?? {};
  const forks = options.forks ?? 5;
  const pool = options.pool ?? new TransportPool(transports);
  const stats: Record<string, HostStats> = {};
  const records: TaskRecord[] = [];
  const facts: Record<string, Record<string, unknown>> = {};
  const registered: Record<string, Record<string, unknown>> = {};
  const dropped = new Set<string>();
  const hostByName = new Map(inventory.hosts.map((h) => [h.name, h]));
  const groupsVar = Object.fromEntries(
    Object.keys(inventory.groups).map((g) => [g, groupHosts(inventory, g)]),
  );
  const groupNames = new Map(inventory.hosts.map((h) => [h.name, groupsOfHost(inventory, h.name)]));

  let limitHosts: Set<string> | undefined;
  if (options.limit) {
    const match = resolveHostPattern(inventory, options.limit);
    if (match.hosts.length === 0)
      throw new UsageError(`--limit "${options.limit}" matches no host of the inventory`);
    limitHosts = new Set(match.hosts);
  }

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
      await runPlay(play);
    }
  } finally {
    if (!options.pool) await pool.closeAll();
  }
  if (options.signal?.aborted) status = 'interrupted';
  const exitCode = status === 'interrupted' ? 99 : exitCodeFor(stats);
  if (status === 'succeeded' && exitCode !== EXIT.ok) status = 'failed';
  const durationMs = Date.now() - started;
  emit({
    type: 'run-end',
    status,
    durationMs,
    ...(exitCode === EXIT.ok ? {} : { message: `exit code ${exitCode}` }),
  });
  return { status, exitCode, stats, records, facts, durationMs };

  async function runPlay(play: Play): Promise<void> {
    const match = resolveHostPattern(inventory, play.hosts);
    let hosts = match.hosts.map((name) => hostByName.get(name)!);
    if (match.unmatched.some((t) => t === 'localhost' || t === '127.0.0.1') && !hostByName.has('localhost'))
      hosts.push(IMPLICIT_LOCALHOST);
    if (limitHosts) hosts = hosts.filter((h) => limitHosts!.has(h.name) || h === IMPLICIT_LOCALHOST);
    hosts = hosts.filter((h) => !dropped.has(h.name));
    for (const h of hosts) stats[h.name] ??= emptyStats();
    if (hosts.length === 0) return;
    const playVars = await loadVarsFiles(play);
    const active = [...hosts];
    const notified = new Map<Task, Set<string>>();

    const scopeFor = (host: InventoryHost, task: Task, hostvars: Record<string, unknown>) =>
      mergeVars([
        {
          values: {
            inventory_hostname: host.name,
            inventory_hostname_short: host.name.split('.')[0],
            group_names: groupNames.get(host.name) ?? [],
            groups: groupsVar,
            hostvars,
            ansible_play_hosts: active.map((h) => h.name),
            ansible_play_batch: active.map((h) => h.name),
            play_hosts: active.map((h) => h.name),
            ansible_play_hosts_all: hosts.map((h) => h.name),
            ansible_play_name: play.name,
            playbook_dir: playbook.dir,
            ansible_check_mode: options.check === true,
            ansible_run_tags: options.tags ?? ['all'],
            ansible_skip_tags: options.skipTags ?? [],
            omit: OMIT,
          },
        },
        { values: host.vars, templated: true },
        { values: play.vars, templated: true },
        { values: playVars, templated: true },
        { values: task.vars, templated: true },
        { values: facts[host.name] },
        { values: registered[host.name] },
        { values: extraVars, templated: true },
      ]);

    const hostvarsObject = () => {
      const hv: Record<string, unknown> = {};
      for (const h of [...inventory.hosts, ...(hostByName.has('localhost') ? [] : [IMPLICIT_LOCALHOST])]) {
        let cache: Record<string, unknown> | undefined;
        Object.defineProperty(hv, h.name, {
          enumerable: true,
          get: () =>
            (cache ??= mergeVars([
              { values: { inventory_hostname: h.name, group_names: groupNames.get(h.name) ?? [] } },
              { values: h.vars, templated: true },
              { values: facts[h.name] },
              { values: registered[h.name] },
              { values: extraVars, templated: true },
            ])),
        });
      }
      return hv;
    };

    const runTask = async (task: Task, targets: InventoryHost[]) => {
      const taskStarted = Date.now();
      const effective: Task = { ...task };
      if (effective.become === undefined && play.become !== undefined) effective.become = play.become;
      if (effective.becomeUser === undefined && play.becomeUser !== undefined)
        effective.becomeUser = play.becomeUser;
      if (effective.ignoreErrors === undefined && play.ignoreErrors !== undefined)
        effective.ignoreErrors = play.ignoreErrors;
      if (play.environment !== undefined) {
        effective.environment =
          typeof play.environment === 'object' &&
          (task.environment === undefined || typeof task.environment === 'object')
            ? { ...play.environment, ...(task.environment ?? {}) }
            : (task.environment ?? play.environment);
      }
      if (effective.throttle === undefined && play.throttle !== undefined) effective.throttle = play.throttle;
      const runOn = task.runOnce ? targets.slice(0, 1) : targets;
      emit({ type: 'task-start', task: task.name, hosts: runOn.map((h) => h.name) });
      const hostvars = hostvarsObject();
      const throttle = new Throttle();
      let firstError: string | undefined;
      await mapLimit(runOn, forks, async (host) => {
        if (options.signal?.aborted) return;
        const vars = scopeFor(host, effective, hostvars);
        // Ansible ignores throttle on a run_once task (strategy/__init__.py).
        const limit = task.runOnce ? 0 : hostThrottle(effective, vars);
        if (limit === undefined) {
          const outcome = syntheticFailure(effective, host, THROTTLE_NOT_INTEGER);
          firstError ??= `${host.name}: ${THROTTLE_NOT_INTEGER}`;
          record(play, effective, host, outcome, [host]);
          return;
        }
        const release = await throttle.acquire(limit);
        try {
          if (options.signal?.aborted) return;
          emit({ type: 'step-start', task: task.name, host: host.name, step: task.name, attempt: 1 });
          const outcome = await runOnHost(effective, host, vars);
          if (outcome.failed && !outcome.ignored) firstError ??= `${host.name}: ${outcome.msg ?? 'failed'}`;
          record(play, effective, host, outcome, task.runOnce ? targets : [host]);
        } finally {
          release();
        }
      });
      emit({
        type: 'task-end',
        task: task.name,
        status: firstError ? 'failed' : 'done',
        ...(firstError
          ? { error: task.noLog ? `${firstError.split(':')[0]}: ${NO_LOG_MESSAGE}` : firstError }
          : {}),
        durationMs: Date.now() - taskStarted,
      });
    };

    const runOnHost = async (
      task: Task,
      host: InventoryHost,
      vars: Record<string, unknown>,
    ): Promise<TaskOutcome> => {
      let target = host;
      if (task.delegateTo) {
        let name: string;
        try {
          name = renderString(task.delegateTo, vars);
        } catch (error) {
          return syntheticFailure(task, host, `delegate_to: ${(error as Error).message}`);
        }
        const delegate =
          hostByName.get(name) ??
          (name === 'localhost' || name === '127.0.0.1' ? IMPLICIT_LOCALHOST : undefined);
        if (!delegate)
          return syntheticFailure(task, host, `delegate_to: "${name}" is not a host of the inventory`);
        target = delegate;
      }
      let transport: Awaited<ReturnType<TransportPool['get']>>;
      try {
        transport = await pool.get(target);
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        if (!(error instanceof ConnectionError))
          return syntheticFailure(task, host, `cannot connect to ${target.name}: ${message}`);
        return {
          ...syntheticFailure(task, host, message),
          status: 'unreachable',
          unreachable: true,
          ignored: false,
        };
      }
      const output = lineBuffer((stream, data) =>
        emit({ type: 'step-output', task: task.name, host: host.name, step: task.name, stream, data }),
      );
      const execOptions: Parameters<typeof executeTask>[0] = {
        task,
        host,
        transport,
        vars,
        check: options.check === true,
        onOutput: output.push,
        onRetry: ({ attempt, delayMs, result }) =>
          emit({
            type: 'step-retry',
            task: task.name,
            host: host.name,
            step: task.name,
            attempt,
            delayMs,
            result: task.noLog ? hiddenResult(result) : result,
          }),
      };
      if (target !== host) execOptions.delegateHost = target;
      if (options.signal) execOptions.signal = options.signal;
      if (options.timeoutMs !== undefined) execOptions.timeoutMs = options.timeoutMs;
      const outcome = await executeTask(execOptions);
      output.flush();
      if (outcome.unreachable) await pool.forget(target.name);
      return outcome;
    };

    const record = (
      p: Play,
      task: Task,
      host: InventoryHost,
      outcome: TaskOutcome,
      applyTo: InventoryHost[],
    ) => {
      // Learnt before anything else about this task is emitted or recorded.
      if (task.noLog) {
        if (task.register) redactor.add(outcome.registered);
        redactor.add(outcome.facts);
      }
      stats[host.name] ??= emptyStats();
      const s = stats[host.name]!;
      if (outcome.unreachable) {
        s.unreachable++;
        drop(host.name);
        emit({
          type: 'host-unreachable',
          task: task.name,
          host: host.name,
          message: outcome.msg ?? 'unreachable',
        });
      } else if (outcome.failed && !outcome.ignored) {
        s.failed++;
        drop(host.name);
      } else if (outcome.skipped) s.skipped++;
      else {
        s.ok++;
        if (outcome.changed) s.changed++;
        if (outcome.ignored) s.ignored++;
      }
      for (const h of applyTo) {
        if (task.register) {
          registered[h.name] ??= {};
          registered[h.name]![task.register] = outcome.registered;
        }
        if (Object.keys(outcome.facts).length > 0) {
          facts[h.name] ??= {};
          Object.assign(facts[h.name]!, outcome.facts);
        }
      }
      if (outcome.notify && task.notify.length > 0) {
        for (const name of task.notify) {
          for (const handler of p.handlers) {
            if (handler.name === name || handler.listen.includes(name)) {
              const set = notified.get(handler) ?? new Set<string>();
              for (const h of applyTo) set.add(h.name);
              notified.set(handler, set);
            }
          }
        }
      }
      const result = task.noLog ? hiddenResult(outcome.lastResult) : outcome.lastResult;
      emit({
        type: 'step-end',
        task: task.name,
        host: host.name,
        step: task.name,
        status: outcome.status,
        result,
      });
      const rec: TaskRecord = {
        play: p.name,
        task: task.name,
        host: host.name,
        status: outcome.status,
        ignored: outcome.ignored,
      };
      const msg = task.noLog ? NO_LOG_MESSAGE : outcome.msg;
      if (msg !== undefined) rec.msg = redactor.text(msg);
      if (outcome.registered['skipped'] !== true && task.delegateTo) rec.delegatedTo = task.delegateTo;
      records.push(rec);
    };

    const drop = (name: string) => {
      dropped.add(name);
      const i = active.findIndex((h) => h.name === name);
      if (i >= 0) active.splice(i, 1);
    };

    const flushHandlers = async () => {
      for (const handler of play.handlers) {
        const who = notified.get(handler);
        if (!who || who.size === 0) continue;
        notified.delete(handler);
        const targets = active.filter((h) => who.has(h.name));
        if (targets.length > 0 && !options.signal?.aborted) await runTask(handler, targets);
      }
    };

    for (const section of play.sections) {
      for (const task of section) {
        if (options.signal?.aborted || active.length === 0) break;
        if (!taskSelected(task, play, options)) continue;
        await runTask(task, [...active]);
      }
      if (active.length > 0) await flushHandlers();
    }
  }

  async function loadVarsFiles(play: Play): Promise<Record<string, unknown>> {
    const out: Record<string, unknown> = {};
    for (const file of play.varsFiles) {
      const scope = mergeVars([
        { values: { playbook_dir: playbook.dir } },
        { values: play.vars, templated: true },
        { values: extraVars, templated: true },
      ]);
      const name = renderValue(file, scope);
      const path = isAbsolute(name) ? name : join(playbook.dir, name);
      let parsed: unknown;
      try {
        parsed = parseYaml(await readFile(path, 'utf8'), ANSIBLE_YAML);
      } catch (error) {
        throw new SpecError([
          {
            file: playbook.path || 'playbook',
            path: `vars_files`,
            message: `cannot load ${path}: ${(error as Error).message.split('\n')[0]}`,
          },
        ]);
      }
      if (parsed === null || parsed === undefined) continue;
      if (typeof parsed !== 'object' || Array.isArray(parsed))
        throw new SpecError([{ file: path, path: '', message: 'a vars file must be a mapping' }]);
      Object.assign(out, parsed);
    }
    return out;
  }
}

type DistributiveOmit<T, K extends keyof T> = T extends unknown ? Omit<T, K> : never;

/** The task's `throttle` for one host (templates rendered with its vars): 0 for none, undefined when not an integer. */
function hostThrottle(task: Task, vars: Record<string, unknown>): number | undefined {
  if (task.throttle === undefined) return 0;
  try {
    return throttleValue(
      typeof task.throttle === 'string' ? renderValue(task.throttle, vars) : task.throttle,
    );
  } catch {
    return undefined;
  }
}

function syntheticFailure(task: Task, host: InventoryHost, msg: string): TaskOutcome {
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
