import { createHash } from 'node:crypto';
import { readdir, readFile, rm, stat } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TestProject } from 'vitest/node';
import { type MixedClusterLab, startMixedClusterLab } from '../../fixtures/cluster-lab/mixed-lab.js';
import { makeTempDir } from '../../scripts/lab/temp-dir.js';
import { kubemixWithUmask } from '../e2e/helpers.js';
import { projectFilesInRun } from './files-in-run.js';
import {
  SHARED_CLUSTER_BUILD_LIMIT_MS,
  SHARED_CLUSTER_READERS,
  type SharedCluster,
} from './shared-cluster-types.js';

/**
 * The e2e tier's one shared lab cluster (vitest `globalSetup` of the e2e project): built once per
 * run, when a file of {@link SHARED_CLUSTER_READERS} is in it. The lab starts before any test; the
 * build runs in the background while the run goes on, and a reader asks for the result over a
 * Unix socket that `provide` names (test/e2e/shared-cluster.ts). It lives in this process (the
 * Windows simulator answers WinRM from here) and is torn down at the end of the run, passed or
 * failed: `kubemix down` (umask 000, as it was built), the lab stopped, its directory removed, all
 * before the leftover check (test/setup/global.ts, set up before this file, tears down after it).
 *
 * What the readers assert about `down` (exit 0, no node left) and that no reader changed the
 * cluster directory (its files and modes are fingerprinted after `up`) are checked here; a
 * failure fails the run (exit code 1), as the leftover check does.
 */

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
const NAME = 'secret-ha';
const PASSWORD_ENV = 'KUBEMIX_SHARED_WINSIM_PASSWORD';
const WINDOWS_KUBELET_CONF = 'C:/etc/kubernetes/kubelet.conf';

/** Are any of the readers among the files this run will run (the command line's file filters)? */
async function readersInRun(project: TestProject): Promise<boolean> {
  const readers = new Set(SHARED_CLUSTER_READERS.map((file) => resolve(repoRoot, file)));
  return (await projectFilesInRun(project)).some((file) => readers.has(file));
}

/** Every file and directory under `dir` with its mode, and every file's SHA-256. */
async function fingerprint(dir: string, into: Record<string, string> = {}, top = dir) {
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    const mode = ((await stat(path)).mode & 0o777).toString(8);
    if (entry.isDirectory()) {
      into[`${relative(top, path)}/`] = mode;
      await fingerprint(path, into, top);
    } else
      into[relative(top, path)] = `${mode} ${createHash('sha256')
        .update(await readFile(path))
        .digest('hex')}`;
  }
  return into;
}

/** Names the entries that differ between two fingerprints. */
function changed(before: Record<string, string>, after: Record<string, string>): string[] {
  const keys = new Set([...Object.keys(before), ...Object.keys(after)]);
  return [...keys].filter((key) => before[key] !== after[key]).sort();
}

async function build(lab: MixedClusterLab, root: string, password: string): Promise<SharedCluster> {
  const clusterDir = join(root, 'home', 'clusters', NAME);
  const env = { [PASSWORD_ENV]: password };
  // No test timeout covers a global setup: a build that hangs is stopped (as Ctrl-C stops it).
  const up = await kubemixWithUmask('000', ['up', lab.specPath, '--cluster-dir', clusterDir], env, {
    signal: AbortSignal.timeout(SHARED_CLUSTER_BUILD_LIMIT_MS),
  });
  const windowsKubeletConf = Object.fromEntries(
    lab.windowsWinrmHosts.map((h) => [
      h.name,
      lab.windows.host(h.name).fs.read(WINDOWS_KUBELET_CONF)?.toString('utf8') ?? null,
    ]),
  );
  return {
    root,
    name: NAME,
    specPath: lab.specPath,
    clusterDir,
    stateDir: lab.linux.stateDir,
    privateKeyPath: lab.linux.privateKeyPath,
    passwordEnv: PASSWORD_ENV,
    password,
    linuxHosts: lab.linux.hosts.map((h) => ({ name: h.name, address: h.address })),
    windowsHosts: lab.windowsWinrmHosts.map((h) => ({ name: h.name, address: h.address })),
    up: { exitCode: up.exitCode, stdout: up.stdout, stderr: up.stderr },
    windowsKubeletConf,
  };
}

/** Tears the cluster down and stops the lab; returns what went wrong (empty when all is well). */
async function tearDown(lab: MixedClusterLab, cluster: SharedCluster, built: Record<string, string>) {
  const problems: string[] = [];
  if (cluster.up.exitCode === 0) {
    const now = await fingerprint(cluster.clusterDir);
    const diff = changed(built, now);
    if (diff.length > 0)
      problems.push(
        `a reader changed the shared cluster directory (${cluster.clusterDir}): ${diff.join(', ')}`,
      );
  }
  if (await lab.linux.cluster.cluster()) {
    const down = await kubemixWithUmask(
      '000',
      ['down', cluster.specPath, '--cluster-dir', cluster.clusterDir],
      {
        [PASSWORD_ENV]: cluster.password,
      },
    );
    if (down.exitCode !== 0)
      problems.push(`kubemix down exited ${down.exitCode}:\n${down.stdout}\n${down.stderr}`);
    const left = (await lab.linux.cluster.nodes()).map((n) => n.metadata.name);
    if (left.length > 0) problems.push(`nodes left after kubemix down: ${left.join(', ')}`);
  }
  return problems;
}

export default async function setup(project: TestProject): Promise<(() => Promise<void>) | undefined> {
  if (!(await readersInRun(project))) {
    project.provide('sharedCluster', undefined);
    return undefined;
  }
  // In the run's directory (test/setup/global.ts made it), so the run's leftover check covers it.
  const root = await makeTempDir('shared-cluster', process.env['KMX_TEST_RUN_DIR']);

  let lab: MixedClusterLab | undefined;
  try {
    lab = await startMixedClusterLab({
      controllers: 3,
      linuxWorkers: 1,
      windowsWorkers: 1,
      rebootDownMs: 300,
      scale: 0,
      dir: join(root, 'lab'),
      name: NAME,
      passwordEnv: PASSWORD_ENV,
    });
  } catch (error) {
    await rm(root, { recursive: true, force: true });
    throw error;
  }
  // The Windows lab put the password into this process's environment; the test files' workers,
  // started after this, need not inherit it: the CLI runs below get it explicitly.
  const password = process.env[PASSWORD_ENV] ?? '';
  delete process.env[PASSWORD_ENV];
  const running = lab;
  let built: Record<string, string> = {};
  // Built while the run goes on (the unit tier, the slowest files first): a reader asks for it
  // over the socket and is answered when it is ready.
  const building = build(running, root, password).then(async (cluster) => {
    if (cluster.up.exitCode === 0) built = await fingerprint(cluster.clusterDir);
    return cluster;
  });
  const socket = join(root, 'cluster.sock');
  const server = await serveWhenReady(socket, building);
  project.provide('sharedCluster', { socket });

  return async () => {
    let problems: string[];
    try {
      problems = await tearDown(running, await building, built);
    } catch (error) {
      problems = [`building or tearing down the shared cluster failed: ${String(error)}`];
    } finally {
      await new Promise((done) => server.close(done));
      await running.stop();
      await rm(root, { recursive: true, force: true });
    }
    if (problems.length === 0) return;
    console.error(`\nshared e2e cluster (test/setup/shared-cluster.ts):\n${problems.join('\n')}\n`);
    process.exitCode = 1;
  };
}

/**
 * An HTTP server on a Unix socket that answers every request, once `cluster` settles, with
 * `{ cluster }` or `{ error }` (JSON): the readers' workers are other processes, and `provide`
 * hands them plain data only once, before the build is done.
 */
async function serveWhenReady(socket: string, cluster: Promise<SharedCluster>): Promise<Server> {
  const answer = cluster.then(
    (value) => JSON.stringify({ cluster: value }),
    (error: unknown) => JSON.stringify({ error: String(error) }),
  );
  const server = createServer((_request, response) => {
    void answer.then((body) => response.end(body));
  });
  await new Promise<void>((listening, failed) => {
    server.once('error', failed);
    server.listen(socket, listening);
  });
  return server;
}
