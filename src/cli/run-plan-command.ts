import { createWriteStream } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { runPlan, type RunSummary } from '../engine/index.js';
import { createTransport } from '../executor/create-transport.js';
import { createPlaybookStepExecutor } from '../executor/playbook-step-executor.js';
import type { RunEvent, RunEventListener } from '../types/events.js';
import type { Plan } from '../types/plan.js';
import { err, isInteractive, out } from './output.js';
import { formatEventJson, formatEventLine } from './render/line-log.js';
import { startTaskList } from './render/task-list.js';

/** Flags shared by `up` and `down`. */
export interface RunFlags {
  forks?: number;
  stopAfter?: string;
  stopBefore?: string;
  from?: string;
  logFormat: 'text' | 'json';
}

/** Exit codes of a run, like kubectl/kubeadm users expect: 0 ok (also a requested stop), 1 failed, 130 interrupted. */
export function exitCodeFor(summary: RunSummary): number {
  if (summary.status === 'succeeded' || summary.status === 'stopped') return 0;
  if (summary.status === 'interrupted') return 130;
  return 1;
}

/**
 * Runs a plan with the renderers the situation calls for: listr2 on a terminal, plain lines
 * otherwise, JSON lines with --log-format json. Every run also leaves a JSON-lines event log in
 * the cluster directory (runs/<time>.jsonl) for CI and post-mortems; the engine has already
 * redacted secrets from the events.
 */
export async function runPlanWithRenderers(plan: Plan, clusterDir: string, flags: RunFlags): Promise<number> {
  await mkdir(join(clusterDir, 'runs'), { recursive: true });
  const logPath = join(clusterDir, 'runs', `${new Date().toISOString().replaceAll(':', '-')}.jsonl`);
  const log = createWriteStream(logPath, { flags: 'a', mode: 0o600 });
  const listeners: RunEventListener[] = [(event) => log.write(`${formatEventJson(event)}\n`)];
  let taskList: Promise<void> | undefined;
  if (flags.logFormat === 'json') {
    listeners.push((event) => out(formatEventJson(event)));
  } else if (isInteractive()) {
    const list = startTaskList(plan);
    listeners.push(list.listener);
    taskList = list.finished;
  } else {
    listeners.push((event) => {
      const line = formatEventLine(event);
      if (line) out(line);
    });
  }

  const controller = new AbortController();
  const onSigint = () => {
    err('\ninterrupted: stopping running steps and recording state (Ctrl-C again to force)');
    process.off('SIGINT', onSigint);
    controller.abort();
  };
  process.on('SIGINT', onSigint);
  process.on('SIGTERM', onSigint);
  let summary: RunSummary;
  try {
    summary = await runPlan({
      plan,
      clusterDir,
      transports: createTransport,
      // Steps run through the playbook task executor, which renders their templates itself
      // (per loop item, with registered results in scope), so the engine passes args as written.
      executeStep: createPlaybookStepExecutor(),
      render: (value) => value,
      onEvent: (event: RunEvent) => {
        for (const listener of listeners) listener(event);
      },
      signal: controller.signal,
      ...(flags.forks !== undefined ? { forks: flags.forks } : {}),
      ...(flags.stopAfter !== undefined ? { stopAfter: flags.stopAfter } : {}),
      ...(flags.stopBefore !== undefined ? { stopBefore: flags.stopBefore } : {}),
      ...(flags.from !== undefined ? { from: flags.from } : {}),
    });
  } finally {
    process.off('SIGINT', onSigint);
    process.off('SIGTERM', onSigint);
    await taskList;
    await new Promise<void>((resolve) => log.end(resolve));
  }
  if (flags.logFormat !== 'json') {
    for (const failure of summary.failures) {
      err(`FAILED ${failure.task} on ${failure.host}: ${failure.step}`);
      err(`  ran: ${failure.command}`);
      err(`  exit code: ${failure.exitCode ?? 'none'}`);
      if (failure.stderrTail) err(`  ${failure.stderrTail.split('\n').join('\n  ')}`);
    }
    if (summary.status === 'failed' && summary.failures.length === 0 && summary.error) err(`FAILED: ${summary.error}`);
    if (summary.status === 'stopped') out(`stopped as asked; run the same command again to resume (state in ${clusterDir})`);
    if (summary.status === 'interrupted') err(`interrupted; run the same command again to resume (state in ${clusterDir})`);
    out(`event log: ${logPath}`);
  }
  return exitCodeFor(summary);
}
