import { existsSync, readdirSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseDuration } from '../../ci/duration.js';
import { DEFAULT_HISTORY_KEEP } from '../../ci/history.js';
import { refuseUnusableCredentials } from '../../cluster/index.js';
import { readState, recordsLiveBuild, statePath } from '../../engine/index.js';
import { EXIT, KubemixError, UsageError } from '../../errors/index.js';
import { hostsConnectedBy } from '../../plan/credential-check.js';
import { runCi } from '../ci/run-ci.js';
import { clusterFromFlags } from '../cluster-flags.js';
import { intOption, onePositional, SHORT_FORM_HELP } from '../options.js';
import { parseRunCommand, RUN_HELP, specArguments } from './run-command-args.js';

export const ciHelp = `Usage: kubemix ci <spec> [--out DIR] [--timeout DURATION] [--keep-on-failure] [--history DIR] [options]

The unattended run for CI: build the cluster (up, verify included), then ALWAYS tear it down
(down) — after a failed task or check, when the time budget runs out, on SIGTERM from the CI
runner or Ctrl-C — unless --keep-on-failure. A signal during the teardown is noted and the
teardown goes on; a second one stops it.

Writes to the out directory: junit.xml (a test suite per phase: provision, build, verify,
teardown, plus the secret scan), report.html (one self-contained page: outcome, timeline per
host with the critical path and waits, checks, versions, failures, teardown), summary.json,
events.jsonl, hosts/<host>.log, plan.txt, verify.json, the spec (spec/, spec.resolved.yaml) and
versions.json. Before it ends, every file there is scanned for secrets (join tokens, certificate
keys, passwords, private keys, AWS keys): anything found is redacted and the run fails.

Run it again on the same cluster directory as often as you like (a nightly runner): each run
builds from scratch, because the last one tore its cluster down. A cluster that is still there
(kept with --keep-on-failure, built with up, or left by a ci that was killed) is refused until
kubemix down removes it.

Exit codes: 0 everything passed; 1 a task or check failed, or the secret scan found something;
2 bad input; 3 the time budget ran out (the teardown ran); 4 the teardown failed or was stopped:
resources may be left behind (this one wins over the others); 130 interrupted (the teardown ran).

Options:
  --out DIR                  where the reports go; must be empty or new
                             (default: kubemix-ci/<cluster>-<UTC time>)
  --timeout DURATION         time budget for the build and verify together, e.g. 90m, 1h30m;
                             when it runs out the build stops and the teardown runs
  --keep-on-failure          keep a cluster whose build or checks failed, to look at it
                             (tear it down yourself with kubemix down)
  --history DIR              keep this run's summary in DIR with the last ones; the report
                             shows pass/fail per run, duration per task and flaky tasks
  --history-keep N           how many summaries DIR keeps (default ${DEFAULT_HISTORY_KEEP})
${RUN_HELP}
${SHORT_FORM_HELP}`;

export async function ciCommand(argv: string[]): Promise<number> {
  const args = parseRunCommand(
    'ci',
    argv,
    {
      out: { type: 'string' },
      timeout: { type: 'string' },
      'keep-on-failure': { type: 'boolean' },
      history: { type: 'string' },
      'history-keep': { type: 'string' },
    },
    ciHelp,
  );
  if (!args) return 0;
  const { values, positionals, flags } = args;
  const timeoutMs = values.timeout === undefined ? undefined : parseDuration(values.timeout);
  if (values.timeout !== undefined && timeoutMs === undefined)
    throw new UsageError(`--timeout must be a duration such as 90m, 1h30m or 45s, got "${values.timeout}"`);
  const historyKeep = intOption('history-keep', values['history-keep'], { min: 1 }) ?? DEFAULT_HISTORY_KEEP;
  if (values['history-keep'] !== undefined && values.history === undefined)
    throw new UsageError('--history-keep needs --history DIR');
  const specArgument = onePositional('ci', positionals, 'spec');
  const context = await clusterFromFlags(specArgument, values);

  const outDir = resolve(values.out ?? defaultOutDir(context.spec.name));
  refuseUnusableDir('--out', outDir, { mustBeEmpty: true });
  const historyDir = values.history === undefined ? undefined : resolve(values.history);
  if (historyDir) refuseUnusableDir('--history', historyDir, { mustBeEmpty: false });
  // A reproduction builds from nothing: resuming someone's half-built cluster would skip the tasks
  // it is meant to exercise, and tear down a cluster it did not build. A build that was torn down
  // (the last ci's, or an up followed by down) is history: a nightly runner reuses the directory.
  if (recordsLiveBuild(await readState(context.clusterDir)))
    throw new KubemixError(
      `kubemix ci builds from scratch, but cluster ${context.spec.name} has a build recorded in ${statePath(context.clusterDir)} that was not torn down (an earlier up, a ci with --keep-on-failure, or a ci that was killed): run kubemix down ${specArguments(specArgument, values).join(' ')} first`,
      { exitCode: EXIT.badInput },
    );

  // Its teardown connects to the hosts too: the build plan's hosts cover both.
  refuseUnusableCredentials(hostsConnectedBy(context.upPlan()));

  return runCi({
    context,
    specWords: specArguments(specArgument, values),
    outDir,
    ...(timeoutMs !== undefined ? { timeoutMs, timeoutText: values.timeout! } : {}),
    keepOnFailure: values['keep-on-failure'] === true,
    ...(historyDir ? { history: { dir: historyDir, keep: historyKeep } } : {}),
    ...flags,
  });
}

function defaultOutDir(cluster: string): string {
  const stamp = new Date()
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z');
  return `kubemix-ci/${cluster}-${stamp}`;
}

/** A directory flag naming a file, or (for --out) a directory with something in it: bad input. */
function refuseUnusableDir(flag: string, dir: string, options: { mustBeEmpty: boolean }): void {
  if (!existsSync(dir)) return;
  if (!statSync(dir).isDirectory()) throw new UsageError(`${flag} ${dir} is not a directory`);
  if (options.mustBeEmpty && readdirSync(dir).length > 0)
    throw new UsageError(
      `${flag} ${dir} is not empty: kubemix ci writes a fresh directory (remove it or pick another)`,
    );
}
