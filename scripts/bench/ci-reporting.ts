import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import { startMixedClusterLab } from '../../fixtures/cluster-lab/mixed-lab.js';
import { kubemixCli } from '../lab/kubemix-cli.js';
import { makeTempDir } from '../lab/temp-dir.js';
import { REALISTIC_DURATIONS } from './cluster-makespan.js';
import { median } from './stats.js';

/** What `kubemix ci`'s reporting costs on top of the build and teardown it reports on. */
export interface CiReportingResult {
  rounds: number;
  scale: number;
  /** Reporting time kubemix ci measured itself (summary.json timings.reportingMs), per round. */
  reportingMs: number[];
  /** Wall time of `kubemix ci`, and of `kubemix up` + `kubemix down` on the same lab, per round. */
  ciWallMs: number[];
  upDownWallMs: number[];
  /** Medians. */
  medianReportingMs: number;
  medianOverheadMs: number;
}

const cliPath = kubemixCli();

async function timed(args: string[]): Promise<number> {
  const started = performance.now();
  const run = await execa('node', [cliPath, ...args], { reject: false, env: { CI: 'true' } });
  if (run.exitCode !== 0)
    throw new Error(`kubemix ${args[0]} failed (${run.exitCode}):\n${run.stderr.slice(-2000)}`);
  return performance.now() - started;
}

/**
 * A mixed lab cluster (1 controller, 1 Linux, 1 Windows worker; realistic durations x `scale`)
 * built and torn down `rounds` times with `kubemix up` + `kubemix down`, and as many times with
 * `kubemix ci` (which also writes JUnit, the report, logs, scans them and keeps a history).
 */
export async function ciReporting(options: { rounds: number; scale: number }): Promise<CiReportingResult> {
  const lab = await startMixedClusterLab({
    controllers: 1,
    linuxWorkers: 1,
    windowsWorkers: 1,
    durations: REALISTIC_DURATIONS,
    scale: options.scale,
  });
  const work = await makeTempDir('bench-ci');
  const result: CiReportingResult = {
    rounds: options.rounds,
    scale: options.scale,
    reportingMs: [],
    ciWallMs: [],
    upDownWallMs: [],
    medianReportingMs: 0,
    medianOverheadMs: 0,
  };
  try {
    const clusterDir = join(work, 'cluster');
    const spec = lab.specPath;
    for (let round = 0; round < options.rounds; round += 1) {
      result.upDownWallMs.push(
        (await timed(['up', spec, '--cluster-dir', clusterDir])) +
          (await timed(['down', spec, '--cluster-dir', clusterDir])),
      );
      const out = join(work, `out-${round}`);
      const args = [
        'ci',
        spec,
        '--cluster-dir',
        clusterDir,
        '--out',
        out,
        '--history',
        join(work, 'history'),
      ];
      result.ciWallMs.push(await timed(args));
      const summary = JSON.parse(await readFile(join(out, 'summary.json'), 'utf8')) as {
        timings: { reportingMs: number };
      };
      result.reportingMs.push(summary.timings.reportingMs);
    }
    result.medianReportingMs = median(result.reportingMs);
    result.medianOverheadMs = median(result.ciWallMs) - median(result.upDownWallMs);
    return result;
  } finally {
    await lab.stop();
    await rm(work, { recursive: true, force: true });
  }
}
