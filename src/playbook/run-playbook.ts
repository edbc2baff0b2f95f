import { basename } from 'node:path';
import { EXIT } from '../errors/index.js';
import type { RunStatus } from '../types/events.js';
import { loadPlaybook } from './parse-playbook.js';
import { startRun } from './playbook-run.js';
import { exitCodeFor } from './recap.js';
import { runPlay } from './run-play.js';
import type { PlaybookResult, RunPlaybookOptions } from './run-types.js';
import { taskSelected } from './tags.js';

export { IMPLICIT_LOCALHOST } from './implicit-localhost.js';
export type { PlaybookResult, RunPlaybookOptions, TaskRecord } from './run-types.js';

/**
 * Runs an Ansible playbook with the linear strategy: each task runs on every play host (at
 * most `forks` at once) before the next task starts. A failed host leaves the rest of the
 * run; unreachable hosts are reported and dropped while the others carry on; handlers run at
 * the end of each tasks section on the hosts that notified them. Emits RunEvents with each
 * play task as a `task` and the task name as the `step`.
 *
 * The stages live beside this file: startRun (playbook-run.ts), runPlay, runTask, runOnHost,
 * recordOutcome.
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
