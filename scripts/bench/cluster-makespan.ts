import { join } from 'node:path';
import { execa } from 'execa';
import { startMixedClusterLab } from '../../fixtures/cluster-lab/mixed-lab.js';
import { criticalPath } from '../../src/plan/index.js';
import type { RunEvent } from '../../src/types/events.js';
import type { Plan } from '../../src/types/plan.js';
import { kubemixCli } from '../lab/kubemix-cli.js';

/**
 * Durations (ms) of what a real mixed build spends its time on, from typical runs on small VMs:
 * package installs, kubeadm, image pulls behind DaemonSet rollouts, the Windows feature install
 * and its reboot, containerd and PrepareNode on Windows. The lab replays them scaled down.
 */
export const REALISTIC_DURATIONS: Record<string, number> = {
  'apt-get update': 10_000,
  'apt-get install': 30_000,
  'systemctl restart': 2_000,
  'kubeadm init': 60_000,
  'kubeadm join': 30_000,
  'kubectl rollout': 20_000,
  'kubectl wait': 10_000,
  'Install-WindowsFeature': 60_000,
  reboot: 90_000,
  'Install-Containerd.ps1': 45_000,
  'PrepareNode.ps1': 40_000,
  'kubeadm.exe join': 40_000,
};

/** What one `kubemix up` of the mixed lab took, against the schedules it is measured by. */
export interface MakespanResult {
  scale: number;
  makespanMs: number;
  /** The tasks one after another: what a tool without a task graph would take. */
  sumOfTasksMs: number;
  criticalPath: { tasks: string[]; durationMs: number };
  taskMs: Record<string, number>;
  ratioToCriticalPath: number;
  ratioToSum: number;
}

const cliPath = kubemixCli();

/** Builds a 1 controller + 1 Linux + 1 Windows lab cluster with the durations scaled by `scale`. */
export async function clusterMakespan(options: { scale: number }): Promise<MakespanResult> {
  const lab = await startMixedClusterLab({
    controllers: 1,
    linuxWorkers: 1,
    windowsWorkers: 1,
    durations: REALISTIC_DURATIONS,
    scale: options.scale,
  });
  try {
    const clusterDir = join(lab.dir, 'cluster');
    const plan = JSON.parse(
      (await execa('node', [cliPath, 'plan', lab.specPath, '-o', 'json', '--cluster-dir', clusterDir]))
        .stdout,
    ) as Plan;
    const up = await execa(
      'node',
      [cliPath, 'up', lab.specPath, '--cluster-dir', clusterDir, '--log-format', 'json'],
      {
        reject: false,
        env: { CI: 'true' },
      },
    );
    if (up.exitCode !== 0) throw new Error(`kubemix up failed (${up.exitCode}):\n${up.stderr.slice(-2000)}`);
    const events = up.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as RunEvent);
    const taskMs: Record<string, number> = {};
    let makespanMs = 0;
    for (const event of events) {
      if (event.type === 'task-end') taskMs[event.task] = event.durationMs;
      if (event.type === 'run-end') makespanMs = event.durationMs;
    }
    const path = criticalPath(plan.tasks, taskMs);
    const sumOfTasksMs = Object.values(taskMs).reduce((a, b) => a + b, 0);
    return {
      scale: options.scale,
      makespanMs,
      sumOfTasksMs,
      criticalPath: path,
      taskMs,
      ratioToCriticalPath: makespanMs / path.durationMs,
      ratioToSum: makespanMs / sumOfTasksMs,
    };
  } finally {
    await lab.stop();
  }
}
