import { namesThisMachine } from '../types/localhost.js';
import { resolveHostPattern } from './host-pattern.js';
import { IMPLICIT_LOCALHOST } from './implicit-localhost.js';
import type { PlaybookRun, PlayRun } from './playbook-run.js';
import { emptyStats } from './recap.js';
import { runTask } from './run-task.js';
import { taskSelected } from './tags.js';
import type { Play, Task } from './types.js';
import { loadVarsFiles } from './vars-files.js';

/**
 * Runs one play with the linear strategy: each selected task on every host still in the play,
 * and after each tasks section (pre_tasks, tasks, post_tasks) the handlers that were notified.
 */
export async function runPlay(run: PlaybookRun, play: Play): Promise<void> {
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
