import { describe, expect, it } from 'vitest';
import { parseDuration } from '../../src/ci/duration.js';
import { buildPhases, observedCriticalPath, readyTimes } from '../../src/ci/timeline.js';
import { buildPlan } from '../../src/plan/index.js';
import { loadClusterPlaybooks, playbooksDir } from '../../src/playbook/cluster-playbooks.js';
import { loadSpec } from '../../src/spec/index.js';
import { loadVersions } from '../../src/versions/versions.js';

describe('phases', () => {
  it("puts a real plan's provider and host tasks in provision, verify in verify, the rest in build", async () => {
    const { spec } = await loadSpec('k8s-libvirt-1-2-1', {
      windowsWorkers: 1,
      windowsIso: 'https://isos.example/ws2022.iso',
      windowsIsoSha256: 'a'.repeat(64),
    });
    const plan = buildPlan({
      spec,
      versions: loadVersions(),
      clusterDir: '/tmp/unused',
      playbooks: await loadClusterPlaybooks(),
      playbookDir: playbooksDir(),
    });
    const phases = buildPhases(plan);
    expect(Object.fromEntries(phases)).toEqual({
      'prepare-provider': 'provision',
      'create-network': 'provision',
      'create-hosts': 'provision',
      'wait-for-hosts': 'provision',
      'prepare-linux': 'build',
      'init-control-plane': 'build',
      'install-flannel': 'build',
      'join-linux-workers': 'build',
      'prepare-windows': 'build',
      'join-windows-workers': 'build',
      'install-windows-networking': 'build',
      verify: 'verify',
    });
  });
});

describe('the observed critical path', () => {
  const tasks = [
    { name: 'a', needs: [], run: 0, startMs: 0, endMs: 10 },
    { name: 'linux', needs: ['a'], run: 0, startMs: 10, endMs: 50 },
    { name: 'windows', needs: ['a'], run: 0, startMs: 10, endMs: 80 },
    // Ready at 80, started at 95: waited 15 ms (forks), which shows as a gap on the path.
    { name: 'join', needs: ['linux', 'windows'], run: 0, startMs: 95, endMs: 100 },
    { name: 'cleanup', needs: [], run: 1, startMs: 120, endMs: 130 },
  ];

  it('follows, from the task that ended last, the need each task waited for, across runs', () => {
    expect(observedCriticalPath(tasks)).toEqual(['a', 'windows', 'join', 'cleanup']);
  });

  it('knows when each task was ready: its last need ended, or its run started', () => {
    expect(Object.fromEntries(readyTimes(tasks, [0, 110]))).toEqual({
      a: 0,
      linux: 10,
      windows: 10,
      join: 80,
      cleanup: 110,
    });
  });

  it('leaves out tasks that never ran', () => {
    expect(observedCriticalPath([{ name: 'x', needs: [], run: 0 }, ...tasks.slice(0, 2)])).toEqual([
      'a',
      'linux',
    ]);
  });
});

describe('--timeout durations', () => {
  it.each([
    ['90m', 5_400_000],
    ['1h30m', 5_400_000],
    ['45s', 45_000],
    ['1.5h', 5_400_000],
    ['500ms', 500],
  ])('reads %s', (text, ms) => expect(parseDuration(text)).toBe(ms));

  it.each(['', '90', 'm', '-5m', '0s', '1d', '5 m'])('refuses %j', (text) =>
    expect(parseDuration(text)).toBeUndefined(),
  );
});
