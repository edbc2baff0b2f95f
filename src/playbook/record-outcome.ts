import { hiddenFailureReason, hiddenResult, NO_LOG_MESSAGE } from '../engine/no-log.js';
import type { Redactor } from '../engine/redactor.js';
import type { InventoryHost } from '../types/inventory.js';
import type { TaskOutcome } from './execute-task-types.js';
import { emptyStats } from './recap.js';
import type { PlayRun, TaskRecord } from './run-types.js';
import type { Task } from './types.js';

/**
 * Books one host's outcome of a task: recap counters, dropping a failed or unreachable host,
 * register and set_fact values (for every host in `applyTo`, all play hosts with run_once),
 * notified handlers, the step-end event and the task record.
 */
export function recordOutcome(
  playRun: PlayRun,
  task: Task,
  host: InventoryHost,
  outcome: TaskOutcome,
  applyTo: InventoryHost[],
): void {
  const { run, play, notified } = playRun;
  const { redactor, emit } = run;
  // Learnt before anything else about this task is emitted or recorded.
  if (task.noLog) {
    if (task.register) redactor.add(outcome.registered);
    redactor.add(outcome.facts);
  }
  run.stats[host.name] ??= emptyStats();
  const s = run.stats[host.name]!;
  if (outcome.unreachable) {
    s.unreachable++;
    dropHost(playRun, host.name);
    emit({
      type: 'host-unreachable',
      task: task.name,
      host: host.name,
      message: outcome.msg ?? 'unreachable',
    });
  } else if (outcome.failed && !outcome.ignored) {
    s.failed++;
    dropHost(playRun, host.name);
  } else if (outcome.skipped) s.skipped++;
  else {
    s.ok++;
    if (outcome.changed) s.changed++;
    if (outcome.ignored) s.ignored++;
  }
  for (const h of applyTo) {
    if (task.register) {
      run.registered[h.name] ??= {};
      run.registered[h.name]![task.register] = outcome.registered;
    }
    if (Object.keys(outcome.facts).length > 0) {
      run.facts[h.name] ??= {};
      Object.assign(run.facts[h.name]!, outcome.facts);
    }
  }
  if (outcome.notify && task.notify.length > 0) {
    for (const name of task.notify) {
      for (const handler of play.handlers) {
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
    play: play.name,
    task: task.name,
    host: host.name,
    status: outcome.status,
    ignored: outcome.ignored,
  };
  const msg = shownMessage(task, outcome, redactor);
  if (msg !== undefined) rec.msg = msg;
  if (outcome.registered['skipped'] !== true && task.delegateTo) rec.delegatedTo = task.delegateTo;
  run.records.push(rec);
}

/**
 * A task outcome's message as records and events may show it, redacted: a no_log task's output
 * stays hidden, but when it failed, its error is told (see hiddenFailureReason).
 */
export function shownMessage(task: Task, outcome: TaskOutcome, redactor: Redactor): string | undefined {
  if (!task.noLog) return outcome.msg === undefined ? undefined : redactor.text(outcome.msg);
  if (!outcome.failed) return NO_LOG_MESSAGE;
  return hiddenFailureReason(outcome.msg ?? 'failed', outcome.registered, redactor);
}

/** Takes a failed or unreachable host out of the play and of the rest of the run. */
export function dropHost(playRun: PlayRun, name: string): void {
  playRun.run.dropped.add(name);
  const i = playRun.active.findIndex((h) => h.name === name);
  if (i >= 0) playRun.active.splice(i, 1);
}
