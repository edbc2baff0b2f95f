import { existsSync } from 'node:fs';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { writeLabSpec } from '../../fixtures/cluster-lab/lab-spec.js';
import { type ClusterLab, startClusterLab } from '../../fixtures/lab/cluster-lab.js';
import { kubemixCli } from '../../scripts/lab/kubemix-cli.js';
import type { CiSummary } from '../../src/ci/summary-types.js';
import { kubemix, settleKubemixRuns, tempClusterDir } from './helpers.js';
import { privateClusterDir, sharedClusterState, useSharedCluster } from './shared-cluster.js';

// A cluster directory over its life, the way a persistent CI runner and a user use it (issue #21
// items 7 and 8): `kubemix ci` night after night on one directory; `up --stop-after` and the
// command its hint prints; `down` leaving a directory that tells the truth. The cheapest cluster
// the ci tests build: one Linux lab host (real sshd, Kubernetes stand-ins, fixtures/lab); the
// refusal of a cluster that is still up reads the e2e tier's shared cluster instead of building one.
let lab: ClusterLab;
let current: { spec: string; clusterDir: string } | undefined;

const cli = kubemixCli();

beforeAll(async () => {
  lab = await startClusterLab({ count: 1 });
});

afterEach(async () => {
  await settleKubemixRuns();
  if (current && (await lab.cluster.cluster()))
    await kubemix(['down', current.spec, '--cluster-dir', current.clusterDir]);
  current = undefined;
});

afterAll(async () => {
  await lab?.stop();
});

/** A one-host cluster spec (the host is the controller), its cluster directory and a work dir. */
async function oneHostCluster(name: string) {
  const dir = await tempClusterDir();
  const spec = await writeLabSpec(dir, {
    name,
    linuxHosts: lab.hosts.slice(0, 1),
    controllers: 1,
    knownHostsPath: lab.knownHostsPath,
    privateKeyPath: lab.privateKeyPath,
  });
  current = { spec, clusterDir: join(dir, 'cluster') };
  return { ...current, dir };
}

/** Runs a command line kubemix printed, word for word, through a shell where `kubemix` is the built CLI. */
function runPrinted(commandLine: string) {
  return execa('bash', ['-c', `kubemix() { node ${cli} "$@"; }; ${commandLine}`], {
    reject: false,
    env: { CI: 'true' },
  });
}

describe('a cluster directory over its life', () => {
  it('kubemix ci runs three times in a row on one cluster directory, each green', async () => {
    const { spec, clusterDir, dir } = await oneHostCluster('ci-nightly');
    const history = join(dir, 'history');
    for (const night of [1, 2, 3]) {
      const out = join(dir, `out-${night}`);
      const run = await kubemix([
        'ci',
        spec,
        '--cluster-dir',
        clusterDir,
        '--out',
        out,
        '--history',
        history,
      ]);
      expect([night, run.exitCode, run.stderr]).toEqual([night, 0, '']);
      expect(run.stdout).toContain('kubemix ci: PASSED');
      const summary = JSON.parse(await readFile(join(out, 'summary.json'), 'utf8')) as CiSummary;
      expect([summary.outcome, summary.teardown.status]).toEqual(['passed', 'passed']);
      // Each night built from scratch: every build task ran, none was taken over from the last.
      expect(await readFile(join(out, 'events.jsonl'), 'utf8')).not.toContain('already-done');
      expect(await lab.cluster.nodes()).toEqual([]);
    }
    // The per-run history ci keeps: three summaries.
    expect((await readdir(history)).filter((f) => f.endsWith('.json'))).toHaveLength(3);
  });

  describe('on the shared cluster', () => {
    const builtCluster = useSharedCluster();

    it('a ci refuses a cluster that is still up, and says what removes it', async () => {
      // A cluster that is up: the e2e tier's shared one (test/setup/shared-cluster.ts), its spec and a
      // copy of its directory. ci refuses from the recorded state, before it connects to any host.
      const shared = builtCluster();
      expect(shared.up.exitCode, shared.up.stderr).toBe(0);
      const state = sharedClusterState(shared);
      const nodeNames = async () => (await state.nodes()).map((n) => n.metadata.name).sort();
      const nodes = await nodeNames();
      expect(nodes).toEqual(['lab-01', 'lab-02', 'lab-03', 'lab-04', 'win-01']);
      const clusterDir = await privateClusterDir(shared);
      const out = join(await tempClusterDir(), 'out');
      const refused = await kubemix(['ci', shared.specPath, '--cluster-dir', clusterDir, '--out', out]);
      expect(refused.exitCode).toBe(2);
      expect(refused.stderr).toContain(
        `run kubemix down '${shared.specPath}' --cluster-dir '${clusterDir}' first`,
      );
      expect(await nodeNames()).toEqual(nodes);
    });
  });

  it('up --stop-after prints the command that goes on, and that command finishes the build', async () => {
    const { spec, clusterDir } = await oneHostCluster('stop-after-hint');
    const stopped = await kubemix(['up', spec, '--cluster-dir', clusterDir, '--stop-after', 'prepare-linux']);
    expect(stopped.exitCode, stopped.stderr).toBe(0);
    const hint = /stopped as asked; to go on: (kubemix up .*) \(state in /.exec(stopped.stdout)?.[1];
    expect(hint).toBe(`kubemix up '${spec}' --cluster-dir '${clusterDir}'`);
    const resumed = await runPrinted(hint!);
    expect(resumed.exitCode, resumed.stderr).toBe(0);
    expect(resumed.stdout).not.toContain('stopped as asked');
    expect(resumed.stdout).toContain('DONE  verify');
    expect(resumed.stdout).toContain('Cluster stop-after-hint is up');
  });

  it('after down the directory tells the truth: torn down, when, both logs; no kubeconfig, merged context removed', async () => {
    const { spec, clusterDir, dir } = await oneHostCluster('down-truth');
    const up = await kubemix(['up', spec, '--cluster-dir', clusterDir]);
    expect(up.exitCode, up.stderr).toBe(0);
    // The user's kubeconfig, with a context of their own beside the one kubemix merges.
    const kubeconfig = join(dir, 'user-kubeconfig');
    const mine = {
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [{ name: 'mine', cluster: { server: 'https://192.0.2.1:6443' } }],
      users: [{ name: 'mine', user: { token: 'not-a-secret' } }],
      contexts: [{ name: 'mine', context: { cluster: 'mine', user: 'mine' } }],
      'current-context': 'mine',
    };
    await writeFile(kubeconfig, stringify(mine), { mode: 0o600 });
    const merged = await kubemix(['kubeconfig', spec, '--cluster-dir', clusterDir, '--merge'], {
      KUBECONFIG: kubeconfig,
    });
    expect(merged.exitCode, merged.stderr).toBe(0);
    expect(parse(await readFile(kubeconfig, 'utf8'))['current-context']).toBe('kubemix-down-truth');

    // down from a shell whose KUBECONFIG is another file: kubemix remembers where it merged.
    const down = await kubemix(['down', spec, '--cluster-dir', clusterDir], {
      KUBECONFIG: join(dir, 'other'),
    });
    expect(down.exitCode, down.stderr).toBe(0);
    expect(down.stdout).toContain(`removed context kubemix-down-truth from ${kubeconfig}`);
    const named = /^event log: (.+)$/m.exec(down.stdout)?.[1];
    expect(named && existsSync(named)).toBe(true);
    expect(await readFile(named!, 'utf8')).toContain('"type":"run-end"');
    expect(existsSync(join(dir, 'other'))).toBe(false);

    // The merged entries are gone, the user's own kept, no current context (as kind delete cluster).
    expect(parse(await readFile(kubeconfig, 'utf8'))).toEqual({ ...mine, 'current-context': '' });
    expect(existsSync(join(clusterDir, 'admin.conf'))).toBe(false);
    const kubeconfigAfter = await kubemix(['kubeconfig', spec, '--cluster-dir', clusterDir]);
    expect(kubeconfigAfter.exitCode).toBe(1);
    expect(kubeconfigAfter.stdout).toBe('');
    expect(kubeconfigAfter.stderr.trim()).toMatch(
      /^kubemix kubeconfig: cluster down-truth was torn down at \S+ \(kubemix down\); build it again with kubemix up$/,
    );

    const status = await kubemix(['status', spec, '--cluster-dir', clusterDir]);
    expect(status.exitCode, status.stderr).toBe(0);
    const lines = status.stdout.trim().split('\n');
    expect(lines[1]).toMatch(
      /^torn down at \d{4}-\d\d-\d\dT\S+Z \(kubemix down\); the next kubemix up builds it again$/,
    );
    expect(lines[2]).toMatch(/^last build: succeeded, started \S+, ended \S+$/);
    expect(status.stdout).not.toContain('pending');
    const build = /^ {2}build {5}(.+)$/m.exec(status.stdout)?.[1];
    const teardown = /^ {2}teardown {2}(.+)$/m.exec(status.stdout)?.[1];
    expect(teardown).toBe(named);
    // Both runs' logs are kept: the build's ends with its run-end, like the teardown's.
    expect(build && (await readFile(build, 'utf8'))).toContain('"status":"succeeded"');
    expect(build).not.toBe(teardown);

    // And the directory builds again.
    const again = await kubemix([
      'up',
      spec,
      '--cluster-dir',
      clusterDir,
      '--stop-after',
      'init-control-plane',
    ]);
    expect(again.exitCode, again.stderr).toBe(0);
    expect(again.stdout).not.toContain('already');
  });
});
